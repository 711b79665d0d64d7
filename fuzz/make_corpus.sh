#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Writes the seed corpus of fuzz_differential into DIR (default fuzz/corpus):
# one "program" per test vector of test/vectors/ (evpciph_chacha*.txt, the
# Wycheproof ChaCha20-Poly1305 file), encoded in the fuzzer's input language
# (see fuzz_differential.c: raw keys/IVs/data with the 0x80 flags), plus a few
# hand-written programs for TLS records, copies and EVP_Cipher. Generated at
# run time, never committed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
vectors=${VECTORS:-$here/../test/vectors}
out=${1:-$here/corpus}
mkdir -p "$out"
LC_ALL=C
export LC_ALL

# hex program lines "name hex" -> one binary file each
tobin() {
    awk -v dir="$out" '
    function hexval(c) { return index("0123456789abcdef", c) - 1 }
    {
        f = dir "/" $1; h = tolower($2)
        printf "" > f
        for (i = 1; i < length(h); i += 2)
            printf "%c", hexval(substr(h, i, 1)) * 16 + hexval(substr(h, i + 1, 1)) > f
        close(f)
    }'
}

# awk helpers shared by both generators
helpers='
function lenenc(n) { return n < 128 ? sprintf("%02x", n) : sprintf("f0%02x%02x", n % 256, int(n / 256)) }
function pad(h, n) { while (length(h) < n) h = h "0"; return h }
# fresh ctx with a raw key and IV; enc 1/0
function start(aead, enc, key, iv) {
    return sprintf("%02x%02x80%s80%s", aead, enc ? 7 : 6, key, pad(iv, 32))
}
function upd(op, h) { return sprintf("%02x80%s%s", op, lenenc(length(h) / 2), h) }
function aead_prog(enc, key, iv, aad, txt, tag,   p) {
    p = start(1, enc, key, iv)
    if (!enc) p = p "0b81" pad(tag, 64)
    if (aad != "") p = p upd(6, aad)
    if (txt != "") p = p upd(3, txt)
    p = p "09"
    if (enc) p = p "0b80" pad("", 64)
    return p
}
'

{
# evp_test stanzas
cat "$vectors"/evpciph_chacha.txt "$vectors"/evpciph_chacha_extra.txt 2>/dev/null |
awk "$helpers"'
function flush() {
    if (cipher != "" && length(key) == 64 && result == "") {
        if (cipher == "chacha20" && length(iv) == 32) {
            n++; printf "seed-evp-%03d %s%s\n", n, start(0, 1, key, iv), upd(3, pt)
        } else if (cipher == "chacha20-poly1305" && length(iv) == 24 && length(tag) == 32) {
            if (op != "DECRYPT") { n++; printf "seed-evp-%03d %s\n", n, aead_prog(1, key, iv, aad, pt, "") }
            if (op != "ENCRYPT") { n++; printf "seed-evp-%03d %s\n", n, aead_prog(0, key, iv, aad, ct, tag) }
        }
    }
    cipher = key = iv = pt = ct = aad = tag = op = result = ""
}
/^[ \t]*$/ { flush(); next }
/^#/ { next }
{
    split($0, kv, / = /); k = kv[1]; v = kv[2]
    if (k == "Cipher") cipher = tolower(v)
    else if (k == "Key") key = v
    else if (k == "IV") iv = v
    else if (k == "Plaintext") pt = v
    else if (k == "Ciphertext") ct = v
    else if (k == "AAD") aad = v
    else if (k == "Tag") tag = v
    else if (k == "Operation") op = v
    else if (k == "Result") result = v
}
END { flush() }'

# Wycheproof: every test with a 12-byte IV and a 16-byte tag, sealed
# (valid ones) and opened (all: the invalid ones must fail on both sides)
awk "$helpers"'
function field(line) { sub(/^[^:]*: *"/, "", line); sub(/".*$/, "", line); return line }
/"key":/ { key = field($0) }
/"iv":/ { iv = field($0) }
/"aad":/ { aad = field($0) }
/"msg":/ { msg = field($0) }
/"ct":/ { ct = field($0) }
/"tag":/ { tag = field($0) }
/"result":/ {
    res = field($0)
    if (length(key) == 64 && length(iv) == 24 && length(tag) == 32 && length(msg) <= 8000) {
        n++
        if (res == "valid") printf "seed-wp-%03d-seal %s\n", n, aead_prog(1, key, iv, aad, msg, "")
        printf "seed-wp-%03d-open %s\n", n, aead_prog(0, key, iv, aad, ct, tag)
    }
}' "$vectors"/chacha20_poly1305_test.json

# hand-written programs (op bytes as in LLVMFuzzerTestOneInput)
k=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
n24=404142434445464748494a4b4c4d4e4f5051525354555657
# XChaCha vs libsodium (first byte 06 stream / 07 AEAD; see fuzz_xchacha())
cat <<EOF
seed-tls-enc 0107$(printf 80)$k$(printf 80)0000000000000000000000000000000000000c000a30000c0012
seed-tls-dec 0106$(printf 80)$k$(printf 80)0000000000000000000000000000000000000c0001400012340c00a3800055660c0e
seed-dup-mid 0107$(printf 80)$k$(printf 80)00000000000000000000000000000000060212340305400d00030120000b80
seed-cipher-api 0107$(printf 80)$k$(printf 80)0000000000000000000000000000000008003012080040040a0b80
seed-c20-wrap 0007$(printf 80)$k$(printf 80)fcffffffffffffff0000000000000000030280ffff0d00030230aa
seed-open-chunks 0107$(printf 80)$k$(printf 80)0000000000000000000000000000000f0f201234567890ab
seed-params 0107$(printf 80)$k$(printf 80)000000000000000000000000000000000e000e060e010e020e030e04000e05
seed-x-aead 0700c80d80${k}00${n24}123456780003001100402010
seed-x-aead-inplace-cipher 0701f07f80${k}00${n24}12345678010501310f203041
seed-x-stream-near-2-64 0606c80080${k}80$k${n24}0205aaaa01c00f00400f
seed-x-stream-rekey 0602f0008000${n24}3412aaaa00c01000c02000
EOF
} | tobin

echo "make_corpus: $(ls "$out" | wc -l) seeds in $out"
