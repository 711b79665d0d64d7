/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Seal and open a file with XChaCha20-Poly1305 through OpenSSL's EVP API and
 * the chacha provider: a random 24-byte nonce per file (no counter to keep:
 * random 24-byte nonces do not collide), the whole file one message.
 *
 *   xchacha_file keygen KEYFILE          32 random bytes into KEYFILE
 *   xchacha_file seal KEYFILE IN OUT     OUT = nonce(24) || ciphertext || tag(16)
 *   xchacha_file open KEYFILE IN OUT     OUT written only if the tag verifies
 *
 * Build: cc xchacha_file.c -o xchacha_file -lcrypto
 * Run:   OPENSSL_MODULES=/dir/of/chacha.so ./xchacha_file ...
 * (or name the provider in openssl.cnf, docs/operators.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#define NONCE_LEN 24
#define TAG_LEN 16
#define CHUNK 65536
/* bound to every file: a sealed file cannot pass for some other format */
static const unsigned char AAD[] = "xchacha_file v1";

static int fail(const char *what)
{
    fprintf(stderr, "xchacha_file: %s\n", what);
    ERR_print_errors_fp(stderr);
    return 1;
}

static int read_key(const char *path, unsigned char key[32])
{
    FILE *f = fopen(path, "rb");
    int ok = f != NULL && fread(key, 1, 32, f) == 32 && fgetc(f) == EOF;

    if (f != NULL)
        fclose(f);
    return ok;
}

/* Encrypt or decrypt n bytes of in into out, CHUNK at a time. */
static int crypt_stream(EVP_CIPHER_CTX *ctx, FILE *in, FILE *out, long n)
{
    static unsigned char buf[CHUNK], res[CHUNK];
    int outl;

    while (n > 0) {
        size_t want = n < CHUNK ? (size_t)n : CHUNK;

        if (fread(buf, 1, want, in) != want
            || !EVP_CipherUpdate(ctx, res, &outl, buf, (int)want)
            || fwrite(res, 1, (size_t)outl, out) != (size_t)outl)
            return 0;
        n -= (long)want;
    }
    OPENSSL_cleanse(buf, sizeof(buf));
    OPENSSL_cleanse(res, sizeof(res));
    return 1;
}

int main(int argc, char **argv)
{
    unsigned char key[32], nonce[NONCE_LEN], tag[TAG_LEN];
    OSSL_PROVIDER *chacha = NULL, *dflt = NULL;
    EVP_CIPHER *cipher = NULL;
    EVP_CIPHER_CTX *ctx = NULL;
    FILE *in = NULL, *out = NULL;
    char tmp[4096];
    long size;
    int seal, outl, rc = 1;

    if (argc == 3 && strcmp(argv[1], "keygen") == 0) {
        FILE *f = fopen(argv[2], "wb");

        rc = f == NULL || RAND_bytes(key, 32) != 1 || fwrite(key, 1, 32, f) != 32;
        if (f != NULL && fclose(f) != 0)
            rc = 1;
        OPENSSL_cleanse(key, sizeof(key));
        return rc ? fail("keygen failed") : 0;
    }
    if (argc != 5 || (strcmp(argv[1], "seal") != 0 && strcmp(argv[1], "open") != 0)) {
        fprintf(stderr, "usage: %s keygen KEYFILE | seal|open KEYFILE IN OUT\n", argv[0]);
        return 2;
    }
    seal = argv[1][0] == 's';
    if (!read_key(argv[2], key))
        return fail("KEYFILE must hold exactly 32 bytes");

    /* our provider for the cipher; the default one for RAND_bytes */
    chacha = OSSL_PROVIDER_load(NULL, "chacha");
    dflt = OSSL_PROVIDER_load(NULL, "default");
    if (chacha == NULL || dflt == NULL) {
        rc = fail("cannot load the chacha and default providers (OPENSSL_MODULES?)");
        goto end;
    }
    cipher = EVP_CIPHER_fetch(NULL, "XChaCha20-Poly1305", "provider=chacha");
    ctx = EVP_CIPHER_CTX_new();
    if (cipher == NULL || ctx == NULL) {
        rc = fail("XChaCha20-Poly1305 is not available");
        goto end;
    }

    in = fopen(argv[3], "rb");
    if (in == NULL || fseek(in, 0, SEEK_END) != 0 || (size = ftell(in)) < 0
        || fseek(in, 0, SEEK_SET) != 0) {
        rc = fail("cannot read IN");
        goto end;
    }
    /* open writes a temporary file and renames it only once the tag verifies */
    snprintf(tmp, sizeof(tmp), "%s.partial", argv[4]);
    out = fopen(seal ? argv[4] : tmp, "wb");
    if (out == NULL) {
        rc = fail("cannot write OUT");
        goto end;
    }

    if (seal) {
        if (RAND_bytes(nonce, NONCE_LEN) != 1
            || !EVP_EncryptInit_ex2(ctx, cipher, key, nonce, NULL)
            || !EVP_EncryptUpdate(ctx, NULL, &outl, AAD, sizeof(AAD))
            || fwrite(nonce, 1, NONCE_LEN, out) != NONCE_LEN
            || !crypt_stream(ctx, in, out, size)
            || !EVP_EncryptFinal_ex(ctx, tag, &outl)
            || !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, tag)
            || fwrite(tag, 1, TAG_LEN, out) != TAG_LEN) {
            rc = fail("sealing failed");
            goto end;
        }
    } else {
        long body = size - NONCE_LEN - TAG_LEN;

        if (body < 0 || fread(nonce, 1, NONCE_LEN, in) != NONCE_LEN
            || fseek(in, size - TAG_LEN, SEEK_SET) != 0
            || fread(tag, 1, TAG_LEN, in) != TAG_LEN
            || fseek(in, NONCE_LEN, SEEK_SET) != 0) {
            rc = fail("IN is not a sealed file");
            goto end;
        }
        if (!EVP_DecryptInit_ex2(ctx, cipher, key, nonce, NULL)
            || !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, tag)
            || !EVP_DecryptUpdate(ctx, NULL, &outl, AAD, sizeof(AAD))
            || !crypt_stream(ctx, in, out, body)) {
            rc = fail("opening failed");
            goto end;
        }
        if (EVP_DecryptFinal_ex(ctx, tag, &outl) != 1) {
            rc = fail("authentication failed: wrong key, or the file was modified");
            goto end;
        }
    }
    if (fclose(out) != 0) {
        out = NULL;
        rc = fail("cannot write OUT");
        goto end;
    }
    out = NULL;
    if (!seal && rename(tmp, argv[4]) != 0) {
        rc = fail("cannot rename the opened file into place");
        goto end;
    }
    rc = 0;
 end:
    if (out != NULL) {
        fclose(out);
        remove(seal ? argv[4] : tmp);     /* nothing unauthenticated is left */
    }
    if (in != NULL)
        fclose(in);
    OPENSSL_cleanse(key, sizeof(key));
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(cipher);
    OSSL_PROVIDER_unload(chacha);
    OSSL_PROVIDER_unload(dflt);
    return rc;
}
