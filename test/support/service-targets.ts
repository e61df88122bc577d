/**
 * The running services a black-box suite can be pointed at. A target starts one service with the
 * given settings (the environment variables `npm start` honours: DNS_SERVERS, SMTP_PORT, the UNSAFE_*
 * lists, SERVICE_DOMAIN, ...) on a state of its own, and hands back what any client has: the base URL
 * and the demo key the service printed. Nothing else crosses this interface, so a suite written
 * against it runs unchanged against every target the list holds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtFunctions } from './built-functions.js';
import { NPM_START_SCRIPT, startServer } from './processes.js';

/** Environment variables of the service, by name. */
export type ServiceSettings = Readonly<Record<string, string>>;

export interface RunningService {
  /** The base URL, e.g. `http://127.0.0.1:PORT`, without a trailing slash. */
  url: string;
  /** The demo account's key, as the service printed it at start-up. */
  demoKey: string;
  /** Stops the service and removes its state; fails if it did not shut down cleanly. */
  stop(): Promise<void>;
}

export interface ServiceTarget {
  /** How the service is run, e.g. `npm start`; names the suite's describe block. */
  name: string;
  start(settings: ServiceSettings): Promise<RunningService>;
}

/**
 * A server script as a child process on a fresh DATA_DIR; the banner gives the URL and the demo key.
 * `startUpMs`: start:synth may build and synthesize first.
 */
function serverTarget(
  name: string,
  script: string,
  startUpMs: number,
  prepare: () => Promise<unknown> = async () => undefined,
): ServiceTarget {
  return {
    name,
    async start(settings) {
      await prepare();
      const dataDir = await mkdtemp(join(tmpdir(), 'lookup-blackbox-'));
      const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
      const server = await startServer(dataDir, { ...settings }, script, startUpMs).catch(
        async (error: unknown) => {
          await removeDataDir();
          throw error;
        },
      );
      return {
        url: server.url,
        demoKey: server.demoKey,
        async stop() {
          const code = await server.stop();
          await removeDataDir();
          if (code !== 0) throw new Error(`${name} answered SIGTERM with exit code ${code}, not 0`);
        },
      };
    },
  };
}

/** Every target the black-box suite runs against: the local server and the synthesized AWS app. */
export function serviceTargets(): ServiceTarget[] {
  return [
    serverTarget('npm start', NPM_START_SCRIPT, 30_000),
    // The bundles through the tests' shared build (one build for every test file that needs it).
    serverTarget('npm run start:synth', 'functions/local/start-synth.ts', 300_000, builtFunctions),
  ];
}
