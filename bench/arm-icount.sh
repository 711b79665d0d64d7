#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Dynamic instruction counts of ChaCha20 on AArch64 under qemu-user: our NEON
# kernel against OpenSSL's own arm64 ChaCha20 (EVP, default provider, the arm64
# libcrypto), as instructions per byte at several lengths. Timings under qemu mean
# nothing; executed instructions are a fair proxy between two NEON codes.
#
# Method: a small loop program encrypts one buffer `iters` times. qemu logs every
# translated block (-d in_asm) and every block execution (-d exec, with nochain so
# that no execution is hidden by block chaining); awk sums the instructions of the
# executed blocks. The same program with iters=0 is the baseline (loader, OpenSSL
# init); (count(iters) - count(0)) / (iters * len) is instructions per byte,
# including per-call overhead (for OpenSSL: EVP_EncryptUpdate's).
#
# Needs .ci/arm-setup.sh first. Usage: bench/arm-icount.sh [lengths...]
#   ARCH=aarch64 (default) or armv7 (ours only, unless libcrypto armhf is there)
#   QEMU_CPU: emulated core (default cortex-a72, or cortex-a15 for armv7)
#   ITERS: encryptions per measured run (default 8)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
lens=("$@")
[ "${#lens[@]}" -eq 0 ] && lens=(64 1024 16384)
iters=${ITERS:-8}
case "${ARCH:-aarch64}" in
aarch64)
    cpu=${QEMU_CPU:-cortex-a72}
    cc=(aarch64-linux-gnu-gcc)
    qemu=(qemu-aarch64 -L /)
    ;;
armv7)
    cpu=${QEMU_CPU:-cortex-a15}
    cc=(arm-linux-gnueabihf-gcc -mfpu=neon)
    # the armhf loader comes from libc6:armhf when installed, else the cross sysroot
    root=/; [ -e /lib/ld-linux-armhf.so.3 ] || root=/usr/arm-linux-gnueabihf
    qemu=(qemu-arm -L "$root")
    # libcrypto from the private sysroot that .ci/arm-setup.sh may have unpacked
    s=/opt/armhf-openssl
    if [ -e "$s/usr/lib/arm-linux-gnueabihf/libcrypto.so" ]; then
        cc+=(-I"$s/usr/include" -I"$s/usr/include/arm-linux-gnueabihf"
             -L"$s/usr/lib/arm-linux-gnueabihf")
        qemu+=(-E "LD_LIBRARY_PATH=$s/usr/lib/arm-linux-gnueabihf")
    fi
    ;;
*) echo "ARCH must be aarch64 or armv7" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/loop.c" <<'CEOF'
/* icount loop: argv = WHO LEN ITERS, WHO = {chacha,poly,aead}-{ours,openssl} */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_EVP
# include <openssl/core_names.h>
# include <openssl/evp.h>
#endif
#include "backend.h"
#include "poly1305.h"

extern const chacha20_impl chacha20_neon_impl;

int main(int argc, char **argv)
{
    static const unsigned char key[32] = { 1, 2, 3 }, iv[16] = { 0, 0, 0, 0, 9 };
    uint32_t k[8], c[4] = { 0, 9, 0, 0 };
    size_t len, iters, i;
    unsigned char *buf, tag[16];
    const char *who;
    int ours, mode;
    poly1305_ctx pc;
#ifdef WITH_EVP
    EVP_CIPHER_CTX *ctx = NULL;
    EVP_CIPHER *ciph = NULL;
    EVP_MAC *mac = NULL;
    EVP_MAC_CTX *mctx = NULL;
    OSSL_PARAM mp[2] = { OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY,
                                                           (void *)key, 32),
                         OSSL_PARAM_END };
    int outl;
    size_t ml;
#endif

    if (argc != 4)
        return 2;
    who = argv[1];
    ours = strstr(who, "-ours") != NULL;
    /* decoded once: no string compare inside the measured loop */
    mode = (strncmp(who, "poly", 4) == 0 ? 2 : strncmp(who, "aead", 4) == 0 ? 4 : 0)
           + ours;
    len = strtoul(argv[2], NULL, 0);
    iters = strtoul(argv[3], NULL, 0);
    buf = calloc(1, len + 1);
    memcpy(k, key, sizeof(k));
    if (buf == NULL)
        return 1;
#ifdef WITH_EVP
    /* every path set up in full, so the baseline (iters = 0) cancels the setup */
    ciph = EVP_CIPHER_fetch(NULL, strncmp(who, "aead", 4) == 0 ? "ChaCha20-Poly1305"
                                                               : "ChaCha20",
                            "provider=default");
    ctx = EVP_CIPHER_CTX_new();
    mac = EVP_MAC_fetch(NULL, "POLY1305", "provider=default");
    mctx = EVP_MAC_CTX_new(mac);
    if (ciph == NULL || ctx == NULL || mctx == NULL
        || !EVP_EncryptInit_ex2(ctx, ciph, key, iv, NULL))
        return 1;
#else
    (void)iv;
    if (!ours)
        return 3;
#endif
    poly1305_init(&pc, &poly1305_portable_impl, key);   /* setup: cancels out */
    for (i = 0; i < iters; i++) {
        if (mode == 1) {                        /* chacha-ours */
            chacha20_neon_impl.xor_stream(buf, buf, len, k, c);
            c[0] += (uint32_t)((len + 63) / 64);
        } else if (mode == 3) {                 /* poly-ours */
            poly1305_init(&pc, &poly1305_portable_impl, key);
            poly1305_update(&pc, buf, len);
            poly1305_final(&pc, tag);
            buf[0] ^= tag[0];
        } else if (mode == 5) {                 /* aead-ours */
            /* the provider's two-step bulk path: ChaCha20 then Poly1305 */
            chacha20_neon_impl.xor_stream(buf, buf, len, k, c);
            c[0] += (uint32_t)((len + 63) / 64);
            poly1305_update(&pc, buf, len);
        }
#ifdef WITH_EVP
        else if (mode == 2) {                   /* poly-openssl */
            if (!EVP_MAC_init(mctx, NULL, 0, mp) || !EVP_MAC_update(mctx, buf, len)
                || !EVP_MAC_final(mctx, tag, &ml, sizeof(tag)))
                return 1;
            buf[0] ^= tag[0];
        } else if (!EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)len)) {
            return 1;
        }
#endif
    }
    printf("%02x\n", buf[0]);
#ifdef WITH_EVP
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(ciph);
    EVP_MAC_CTX_free(mctx);
    EVP_MAC_free(mac);
#endif
    free(buf);
    return 0;
}
CEOF
srcs=("$top/provider/asm/chacha20_neon.c" "$top/provider/impl/chacha20_portable.c"
      "$top/provider/impl/poly1305.c" "$top/provider/impl/poly1305_portable.c")
whos=(chacha-ours poly-ours aead-ours)
if "${cc[@]}" -O2 -DWITH_EVP -I"$top/provider/impl" -o "$work/loop" "$work/loop.c" \
        "${srcs[@]}" -lcrypto 2>/dev/null; then
    whos=(chacha-ours chacha-openssl poly-ours poly-openssl aead-ours aead-openssl)
else
    echo "# no libcrypto for ${ARCH:-aarch64}: our kernel only" >&2
    "${cc[@]}" -O2 -I"$top/provider/impl" -o "$work/loop" "$work/loop.c" "${srcs[@]}"
fi

# Executed instructions of one run: in_asm gives each block's size at
# translation (a block may be translated again: the newest size wins), exec
# lines name the block run.
count() {
    "${qemu[@]}" -cpu "$cpu" -d in_asm,exec,nochain -D "$work/log" \
        "$work/loop" "$@" > /dev/null
    awk '
        function norm(h) { sub(/^0x/, "", h); sub(/^0+/, "", h); return h }
        /^IN:/ { inblk = 1; pc = ""; n = 0; next }
        inblk && /^0x[0-9a-f]+:/ {
            if (pc == "") pc = norm(substr($1, 1, length($1) - 1))
            n++; next
        }
        inblk { if (pc != "") size[pc] = n; inblk = 0 }
        /^Trace / { split($0, f, /[\[\/]/); total += size[norm(f[3])] }
        END { printf "%d\n", total }
    ' "$work/log"
}

printf '# %s -cpu %s, %s iterations, executed instructions per byte\n' \
    "${qemu[0]}" "$cpu" "$iters"
printf '%-8s' "bytes"; printf ' %14s' "${whos[@]}"; printf '\n' 
for len in "${lens[@]}"; do
    row=()
    for who in "${whos[@]}"; do
        base=$(count "$who" "$len" 0)
        full=$(count "$who" "$len" "$iters")
        row+=("$(awk -v a="$full" -v b="$base" -v n="$((iters * len))" \
            'BEGIN { printf "%.3f", (a - b) / n }')")
    done
    printf '%-8s' "$len"; printf ' %14s' "${row[@]}"; printf '\n' 
done
