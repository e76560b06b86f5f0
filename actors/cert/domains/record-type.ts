// The address records a target makes: IPv4 -> A, IPv6 -> AAAA, a host name -> CNAME.
export type RecordType = 'A' | 'AAAA' | 'CNAME';
