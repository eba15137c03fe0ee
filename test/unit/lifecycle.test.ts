import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockDataDir, lockHolder } from '../../lib/local/data-dir-lock';
import { Lifecycle, StartupError } from '../../lib/local/lifecycle';

describe('Lifecycle', () => {
  it('closes services newest first, each once, and one failing to close does not keep the others open', async () => {
    const closed: string[] = [];
    const logged: string[] = [];
    const services = new Lifecycle((line) => logged.push(line));
    const service = (name: string, fails = false) => ({
      close: async () => {
        closed.push(name);
        if (fails) throw new Error(`${name} is stuck`);
      },
    });
    services.add('store', service('store'));
    services.add('drain', service('drain', true));
    services.add('api', service('api'));

    await Promise.all([services.close(), services.close()]);
    expect(closed).toEqual(['api', 'drain', 'store']);
    expect(logged).toEqual(['could not stop drain cleanly: drain is stuck']);
    expect(services.stopping).toBe(true);
  });
});

describe('the data directory lock', () => {
  it('is held by one process at a time, says who holds it, and is released on close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lock-'));
    const lock = lockDataDir(dataDir, { holder: 'server', port: 3000, dynamoPort: 8000 });
    expect(lockHolder(dataDir)).toEqual({ pid: process.pid, holder: 'server', port: 3000, dynamoPort: 8000 });
    expect(() => lockDataDir(dataDir, { holder: 'cli' })).toThrow(StartupError);
    expect(() => lockDataDir(dataDir, { holder: 'cli' })).toThrow(/is in use by another local server \(pid \d+, API port 3000, DynamoDB port 8000\)/);
    await lock.close();
    expect(lockHolder(dataDir)).toBeUndefined();
    await (lockDataDir(dataDir, { holder: 'cli' })).close();
  });

  it('takes over a lock whose process no longer runs', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lock-'));
    // Above the kernel's pid limit, so certainly not running.
    writeFileSync(join(dataDir, 'server.lock'), JSON.stringify({ pid: 2 ** 22 + 1, holder: 'server', port: 1, dynamoPort: 2 }));
    expect(lockHolder(dataDir)).toBeUndefined();
    const lock = lockDataDir(dataDir, { holder: 'server', port: 3000, dynamoPort: 8000 });
    expect(JSON.parse(readFileSync(join(dataDir, 'server.lock'), 'utf8')).pid).toBe(process.pid);
    await lock.close();
  });

  it('takes over a lock whose process has exited but is not reaped yet (a zombie)', async () => {
    // The shell's background child exits at once; the shell then becomes `sleep`, which never reaps it.
    const parent = spawn('sh', ['-c', 'true & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(String(chunk).trim()))));
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
      for (let i = 0; i < 100 && state() !== 'Z'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(state()).toBe('Z');

      const dataDir = mkdtempSync(join(tmpdir(), 'lock-'));
      writeFileSync(join(dataDir, 'server.lock'), JSON.stringify({ pid, holder: 'server', port: 1, dynamoPort: 2 }));
      expect(lockHolder(dataDir)).toBeUndefined();
      const lock = lockDataDir(dataDir, { holder: 'server', port: 3000, dynamoPort: 8000 });
      expect(JSON.parse(readFileSync(join(dataDir, 'server.lock'), 'utf8')).pid).toBe(process.pid);
      await lock.close();
    } finally {
      parent.kill();
    }
  });
});
