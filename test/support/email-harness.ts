/**
 * The service wired to real DNS and SMTP servers on loopback, as the email tests need it: the DNS
 * server answers `zone`, every mail server of the zone is dialled on the test SMTP port (allowed
 * although it is loopback), and a verification's budget is short.
 */
import { type DnsServerHandle, startDnsServer, type Zone } from './dns-server.js';
import { type Harness, startHarness } from './harness.js';
import { type MailServers, startMailServers } from './mail-servers.js';

export interface EmailHarness {
  mail: MailServers;
  dns: DnsServerHandle;
  harness: Harness;
  close(): Promise<void>;
}

/** `env` adds or overrides settings (e.g. the per-reply timeout). */
export async function startEmailHarness(zone: Zone, env: Record<string, string> = {}): Promise<EmailHarness> {
  const mail = await startMailServers();
  const dns = await startDnsServer(zone);
  const harness = await startHarness({
    env: {
      DNS_SERVERS: dns.address,
      SMTP_PORT: String(mail.port),
      UNSAFE_SMTP_ALLOW_HOSTS: mail.allowHosts,
      SMTP_STEP_TIMEOUT_SECONDS: '2',
      SMTP_BUDGET_SECONDS: '8',
      ...env,
    },
  });
  return {
    mail,
    dns,
    harness,
    async close() {
      await harness.close();
      await dns.close();
      await mail.close();
    },
  };
}
