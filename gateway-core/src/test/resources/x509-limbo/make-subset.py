#!/usr/bin/env python3
"""Makes limbo-client-subset.json.gz: the x509-limbo cases that apply to a client-certificate (device) profile.

Usage: python3 make-subset.py <x509-limbo checkout> <output .json.gz>

x509-limbo's limbo.json (about 10 MB) is generated from the checkout's Python; this runs that generator (the `limbo`
package of the checkout, pydantic 2 and cryptography installed) with one change for the client profile: an
end-entity extendedKeyUsage of exactly serverAuth (the generator's default, and what the CRL cases set) is made
clientAuth, since a serverAuth-only leaf is refused by any client-certificate verifier whatever else the case
tests. Any other EKU a case sets is kept. Keys are generated afresh on each run, so the output differs byte for
byte between runs, not in content.

Kept: crl::*, cve::*, pathlen::*, pathological::*, rfc5280::* and the webpki::* cases listed in WEBPKI below
(rules on keys, encodings and certificate shape that any profile has; the others are CA/Browser Forum rules for
public server certificates: host-name matching, CN/SAN agreement, public suffixes). Which of the kept cases the
test then skips, and why, is listed in LimboClientTest. Fields the test does not read (keys, descriptions beyond
a line) are dropped.
"""
import gzip
import json
import sys

sys.path.insert(0, sys.argv[1])

from cryptography import x509  # noqa: E402
from limbo.testcases import _core  # noqa: E402

_server_leaf = _core.Builder.leaf_cert


def _client_leaf(self, parent, **kwargs):
    eku = kwargs.get("eku", _core.ext(x509.ExtendedKeyUsage([x509.OID_SERVER_AUTH]), critical=False))
    if eku is not None and list(eku.ext) == [x509.OID_SERVER_AUTH]:
        eku = _core.ext(x509.ExtendedKeyUsage([x509.OID_CLIENT_AUTH]), critical=eku.critical)
    kwargs["eku"] = eku
    return _server_leaf(self, parent, **kwargs)


_core.Builder.leaf_cert = _client_leaf

from limbo import testcases  # noqa: E402

KEEP = ("crl::", "cve::", "pathlen::", "pathological::", "rfc5280::")
WEBPKI = {
    "webpki::explicit-curve",
    "webpki::forbidden-p192-root",
    "webpki::forbidden-p192-leaf",
    "webpki::forbidden-dsa-root",
    "webpki::forbidden-dsa-leaf",
    "webpki::forbidden-weak-rsa-key-in-root",
    "webpki::forbidden-weak-rsa-in-leaf",
    "webpki::malformed-aia",
    "webpki::v1-cert",
    "webpki::ee-basicconstraints-ca",
}
FIELDS = ("id", "features", "validation_kind", "trusted_certs", "untrusted_intermediates", "peer_certificate",
          "validation_time", "key_usage", "extended_key_usage", "expected_result", "max_chain_depth", "crls")

kept, failed = [], []
for name, make in testcases.registry.items():
    if not (name.startswith(KEEP) or name in WEBPKI):
        continue
    try:
        case = json.loads(make().model_dump_json())
    except Exception as e:  # a generator the installed cryptography cannot run
        failed.append(f"{name}: {e!r}"[:160])
        continue
    out = {k: case.get(k) for k in FIELDS}
    out["description"] = " ".join(case["description"].split())[:200]
    kept.append(out)

with gzip.open(sys.argv[2], "wt", encoding="utf-8") as f:
    json.dump({"version": 1, "generator_change": "leaf EKU serverAuth made clientAuth", "testcases": kept}, f)
print(f"{len(kept)} cases written; not generated: {failed}", file=sys.stderr)
