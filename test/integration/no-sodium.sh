#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stands in for test_sodium when configure found no libsodium: a SKIP that
# says so (./test.sh counts a skip on the host as a failure), rather than a
# differential that silently is not there.
echo "no-sodium: libsodium not found at configure time (Debian: libsodium-dev," \
     "scripts/install-deps test): the XChaCha differential against libsodium did not run"
exit 77
