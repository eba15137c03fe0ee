import { commitSettingsChange } from '../commit-settings-change';
import { defaultAccount, type Account, type AccountPatch } from '../schemas/account';
import { ConcurrentAccountUpdateError, loadAccount, saveAccount } from '../store/account-repository';

export async function getAccount(pixelId: string): Promise<Account> {
  return (await loadAccount(pixelId))?.account ?? defaultAccount();
}

/**
 * Applies a PATCH: the members given replace the stored ones, written and announced
 * (`change.kind: "account"`) as commitSettingsChange does. A patch that changes nothing is not a
 * change: nothing is written and no event is sent.
 */
export async function updateAccount(command: { pixelId: string; patch: AccountPatch; apiKeyPk: string; requestTime: Date }): Promise<Account> {
  const { patch } = command;
  return commitSettingsChange({
    ...command,
    kind: 'account',
    load: loadAccount,
    valueOf: (read) => read.account,
    next: (current) => {
      const before = current?.account ?? defaultAccount();
      const value: Account = { ...before, ...patch };
      return { value, changed: value.name !== before.name || value.timezone !== before.timezone || value.currency !== before.currency };
    },
    save: saveAccount,
    isConflict: (error) => error instanceof ConcurrentAccountUpdateError,
  });
}
