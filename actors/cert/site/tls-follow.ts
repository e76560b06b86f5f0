// Keeps certhub's HTTPS certificate current without a restart: the one of its own domain as the
// replica brings each renewal, or the files an operator's tool rewrites (checked every few seconds).
// A new certificate is put in place by HttpServer.replaceCertificate: open connections are kept.
import { readFile } from 'node:fs/promises';
import { unwatchFile, watchFile } from 'node:fs';
import type { ActorContext } from '../../../src/actor/actor.js';
import type { HttpServer } from '../../../src/http/server.js';
import type { TlsMaterial } from '../../../src/http/tls-material.js';
import type { HttpFrontConfig } from '../../../src/http/front-config.js';
import type { CerthubTls } from './protocol.js';
import type { DomainReplica } from './replica.js';

/** How often the certificate files are looked at. */
const fileCheckMs = 5000;

export function followTlsCertificate(tls: CerthubTls, server: HttpServer, replica: DomainReplica, actor: ActorContext<HttpFrontConfig>): void {
  const initial = actor.config.tls?.material;
  if (initial === undefined) return;
  // What is served is recorded only once the swap succeeded: a pair refused (a certificate read beside
  // the old key while a tool rewrites them) must not hide the same certificate with its right key.
  let serving = initial.certPem;
  /** The pair being put in place, so a check during the swap does not start it twice. */
  let swapping: TlsMaterial | undefined;
  const replace = (material: TlsMaterial, source: string) => {
    if (material.certPem === serving) return;
    if (swapping !== undefined && swapping.certPem === material.certPem && swapping.keyPem === material.keyPem) return;
    swapping = material;
    server
      .replaceCertificate(material)
      .then(
        () => {
          serving = material.certPem;
          actor.log.info(`https: now serving the certificate from ${source}`);
        },
        (error: unknown) =>
          actor.log.error(
            `https: the certificate from ${source} was not put in place, the previous one stays: ${error instanceof Error ? error.message : String(error)}`,
          ),
      )
      .finally(() => {
        if (swapping === material) swapping = undefined;
      });
  };

  const { follow } = tls;
  if ('domain' in follow) {
    if (tls.temporary)
      actor.log.warn(`https: serving a temporary self-signed certificate until ${follow.domain} is issued (add it as a domain if it is not there)`);
    const sync = () => {
      const entry = replica.get(follow.domain);
      const material = entry === undefined ? null : replica.material(entry);
      if (material !== null) replace({ certPem: material.cert_pem + material.chain_pem, keyPem: material.key_pem }, `the domain ${follow.domain}`);
    };
    replica.onChange((message) => {
      if (message.type === 'domain' && message.domain.name === follow.domain) sync();
    });
    return;
  }

  const { certFile, keyFile } = follow;
  const check = () => {
    void Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]).then(
      ([certPem, keyPem]) => replace({ certPem, keyPem }, certFile),
      (error: unknown) => actor.log.warn(`https: ${certFile} or ${keyFile} cannot be read: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  // A tool replacing the pair writes one file, then the other: a certificate read beside the old key is
  // refused by the check and taken with the next change.
  watchFile(certFile, { interval: fileCheckMs, persistent: false }, check);
  watchFile(keyFile, { interval: fileCheckMs, persistent: false }, check);
  actor.onThreadExit(() => {
    unwatchFile(certFile, check);
    unwatchFile(keyFile, check);
  });
}
