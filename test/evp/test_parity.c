/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parity with OpenSSL's default provider. "ChaCha20", "ChaCha20-Poly1305"
 * and the "POLY1305" MAC are fetched from "chacha" and from "default" in one
 * OSSL_LIB_CTX; every case
 * runs the same EVP call sequence once per provider while recording each
 * return code, outl, output byte and error (library + reason) into a trace,
 * and the two traces must be equal step by step. An error we raise where the
 * default raises none is only a note. Where the default fails open and we
 * deliberately fail closed (or answer more), the "deviation" cases check our
 * exact behaviour instead and print what the default does.
 *
 * The machinery is parity.c; the cases, by topic: parity_params.c (metadata,
 * ctx params, init splits), parity_chacha20.c (ChaCha20 streams),
 * parity_aead.c (AEAD messages, TLS 1.2 records), parity_odd.c (odd-but-legal
 * sequences, deviations), parity_random.c (random differential, POLY1305 MAC:
 * named sequences and random).
 * Environment: CHACHA_TEST_ITERATIONS (random iterations, default 6000),
 *              CHACHA_TEST_SEED (random seed, printed on every run),
 *              CHACHA_TEST_VERBOSE=1 (list every named case).
 */
#include "parity.h"

int main(void)
{
    const char *env;
    unsigned long iters;
    uint64_t ds = 0x636861636861ULL;

    env = getenv("CHACHA_TEST_VERBOSE");
    list_cases = env != NULL && *env != '\0' && *env != '0';
    if (!tu_init("test_parity"))
        return tu_finish();
    c20[OURS] = tu_fetch_ours("ChaCha20");
    cp[OURS] = tu_fetch_ours("ChaCha20-Poly1305");
    dflt_cipher_final_unchecked = default_cipher_final_unchecked();
    c20[DFLT] = tu_fetch_default("ChaCha20");
    cp[DFLT] = tu_fetch_default("ChaCha20-Poly1305");
    mac[OURS] = EVP_MAC_fetch(tu_libctx, "POLY1305", TU_PROPQ_OURS);
    mac[DFLT] = EVP_MAC_fetch(tu_libctx, "POLY1305", TU_PROPQ_DEFAULT);
    if (!TU_CHECK(c20[OURS] && cp[OURS] && c20[DFLT] && cp[DFLT],
                  "fetching both ciphers from both providers")
        || !TU_CHECK(mac[OURS] && mac[DFLT], "fetching POLY1305 from both providers"))
        goto end;

    rng_fill(&ds, PT, sizeof(PT));
    rng_fill(&ds, AAD, sizeof(AAD));
    rng_fill(&ds, KEY1, 32);
    rng_fill(&ds, KEY2, 32);
    rng_fill(&ds, IV16, 16);
    rng_fill(&ds, IV16B, 16);
    rng_fill(&ds, N12, 12);
    rng_fill(&ds, N12B, 12);
    if (!TU_CHECK(ref_seal(KEY1, N12, AAD, STD_AAD, PT, STD_LEN, STD_CT,
                           STD_TAG), "default provider reference encryption"))
        goto end;

    cases_params();
    cases_init_splits();
    cases_chacha20();
    cases_aead();
    cases_tls();
    cases_odd();
    cases_deviations();
    iters = cases_random();
    printf("# %lu parity cases (%lu random), %lu deviation cases, %lu notes "
           "(errors raised by ours where the default raises none)\n",
           n_parity, iters, n_deviation, notes);

 end:
    trace_reset(&tr[OURS]);
    trace_reset(&tr[DFLT]);
    free(tr[OURS].r);
    free(tr[DFLT].r);
    EVP_CIPHER_free(c20[OURS]);
    EVP_CIPHER_free(cp[OURS]);
    EVP_CIPHER_free(c20[DFLT]);
    EVP_CIPHER_free(cp[DFLT]);
    EVP_MAC_free(mac[OURS]);
    EVP_MAC_free(mac[DFLT]);
    return tu_finish();
}
