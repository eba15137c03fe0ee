/**
 * A module-scope singleton built on first use instead of at module load, so a cold start pays only
 * for what the route touches (a logger, a metrics emitter, an SDK client). The returned object
 * stands for the instance: every property read, write and spy reaches the one instance, which is
 * built once and kept for the life of the container.
 */
export function lazySingleton<T extends object>(create: () => T): T {
  let instance: T | undefined;
  const real = (): T => (instance ??= create());
  // Methods are handed out as proxies that call them on the instance (they may use its private
  // fields), one per function, so the same method reads back as the same value and a test's spy
  // keeps its own properties (`mock`, `mockImplementation`).
  const methods = new WeakMap<object, unknown>();
  const onInstance = (method: (...args: unknown[]) => unknown): unknown => {
    let wrapped = methods.get(method);
    if (!wrapped) {
      wrapped = new Proxy(method, { apply: (target, _this, args) => Reflect.apply(target, real(), args) });
      methods.set(method, wrapped);
    }
    return wrapped;
  };
  return new Proxy(Object.create(null) as T, {
    get: (_target, property) => {
      const target = real();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? onInstance(value as (...args: unknown[]) => unknown) : value;
    },
    set: (_target, property, value) => Reflect.set(real(), property, value, real()),
    has: (_target, property) => Reflect.has(real(), property),
    defineProperty: (_target, property, descriptor) => Reflect.defineProperty(real(), property, descriptor),
    deleteProperty: (_target, property) => Reflect.deleteProperty(real(), property),
    getOwnPropertyDescriptor: (_target, property) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), property);
      // A proxy may not report a property its (empty) target lacks as non-configurable.
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
    ownKeys: () => Reflect.ownKeys(real()),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

/**
 * A module loader (`() => import(...)`) that imports once and hands every later call the same
 * promise: a route still loads its code at its first request, not at init, but a warm request
 * awaits a settled promise instead of a new `import()`, which resolves the specifier again each
 * time (under the local server's TypeScript loader, a round trip to the loader's thread per call,
 * several per request). A failed import is tried again by the next call.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
