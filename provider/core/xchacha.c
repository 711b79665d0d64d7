/* SPDX-License-Identifier: Apache-2.0 */
/* XChaCha20 subkeys and nonces for the AEAD and stream cores (see xchacha.h). */
#include "util.h"
#include "xchacha.h"

void chacha_hchacha20(const chacha20_kernel *k, uint32_t subkey[8],
                      const uint32_t key[8], const uint8_t nonce16[16])
{
    hchacha20_fn *h = k->hchacha20 != NULL ? k->hchacha20
                                           : chacha20_portable_kernel.hchacha20;
    uint32_t in[4];    /* public: nonce words */
    int i;

    for (i = 0; i < 4; i++)
        in[i] = chacha_load_le32(nonce16 + 4 * i);
    h(subkey, key, in);
}

void chacha_xaead_set_key_nonce(chacha_aead *a, const uint32_t key[8],
                                const uint8_t nonce[CHACHA_XNONCE_LEN])
{
    const uint32_t n[3] = { 0, chacha_load_le32(nonce + 16),
                            chacha_load_le32(nonce + 20) };

    chacha_hchacha20(chacha20_stream_hchacha_kernel(&a->cs), a->cs.key, key, nonce);
    chacha_aead_set_nonce(a, n);
}

void chacha_xchacha20_start(chacha20_stream *cs, const uint32_t key[8],
                            const uint8_t nonce[CHACHA_XNONCE_LEN],
                            uint64_t counter)
{
    uint8_t iv[16];    /* OpenSSL's ChaCha20 IV: LE64 counter || nonce 16..23 */

    chacha_store_le64(iv, counter);
    memcpy(iv + 8, nonce + 16, 8);
    chacha20_stream_set_iv(cs, iv);
    chacha_hchacha20(chacha20_stream_hchacha_kernel(cs), cs->key, key, nonce);
}

void chacha_xchacha20_rekey(chacha20_stream *cs, const uint32_t key[8],
                            const uint8_t nonce[CHACHA_XNONCE_LEN])
{
    chacha_hchacha20(chacha20_stream_hchacha_kernel(cs), cs->key, key, nonce);
    chacha20_stream_key_changed(cs);
}
