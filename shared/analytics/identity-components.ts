/**
 * Groups of things that share an identifier, transitively (union-find with path halving). Orders
 * sharing a user id, an email hash or a phone hash are one customer; events whose identifiers were
 * seen together are one person. A member with no identifier is a group of its own.
 */
export class IdentityComponents {
  private readonly parent = new Map<string, string>();

  /** Links every identifier of one member; returns the member's group root, or undefined without identifiers. */
  link(identifiers: readonly string[]): void {
    const [first, ...rest] = identifiers;
    if (first === undefined) return;
    this.add(first);
    for (const other of rest) {
      this.add(other);
      this.union(first, other);
    }
  }

  /** The group's representative: equal for two identifiers exactly when they are linked. */
  root(identifier: string): string {
    let node = identifier;
    for (let parent = this.parent.get(node); parent !== undefined && parent !== node; parent = this.parent.get(node)) {
      const grand = this.parent.get(parent) ?? parent;
      this.parent.set(node, grand);
      node = grand;
    }
    return node;
  }

  has(identifier: string): boolean {
    return this.parent.has(identifier);
  }

  private add(identifier: string): void {
    if (!this.parent.has(identifier)) this.parent.set(identifier, identifier);
  }

  private union(a: string, b: string): void {
    const rootA = this.root(a);
    const rootB = this.root(b);
    // The smaller root wins, so the representative does not depend on the order of links.
    if (rootA !== rootB) {
      if (rootA < rootB) this.parent.set(rootB, rootA);
      else this.parent.set(rootA, rootB);
    }
  }
}

/** The identifiers of a customer or person, as prefixed strings that cannot collide across kinds. */
export function identityKeys(identity: { userIds?: readonly string[]; emailHashes?: readonly string[]; phoneHashes?: readonly string[]; fbp?: readonly string[] }): string[] {
  return [
    ...(identity.userIds ?? []).map((id) => `u:${id}`),
    ...(identity.emailHashes ?? []).map((hash) => `e:${hash}`),
    ...(identity.phoneHashes ?? []).map((hash) => `p:${hash}`),
    ...(identity.fbp ?? []).map((fbp) => `f:${fbp}`),
  ];
}
