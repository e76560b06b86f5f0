// The certificate a front serves over HTTPS, as it travels in an actor's config (no Node module here:
// the http-front protocol, which the pages type-check, refers to it).

export interface TlsMaterial {
  /** The certificate, then the chain that follows it, PEM. */
  certPem: string;
  /** Its private key, PEM. */
  keyPem: string;
}

export interface FrontTls {
  material: TlsMaterial;
  /** A folder of the server's own (mode 0700) where the material is written while an app is made. */
  scratchDir: string;
}
