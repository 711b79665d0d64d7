/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lists the kernels compiled into this build, one per line:
 * "<primitive> <name> yes|no" (no = this CPU cannot run it).
 * With an argument (chacha20 or poly1305) prints only the usable names;
 * "auto": auto's choice on this CPU, "chacha20=K poly1305=K aead=K|two-step";
 * "midr VALUE": the preference words of caps.def that the Arm core with
 * MIDR_EL1 VALUE gets (chacha_arm_core_prefer), or "none";
 * "midr-aead VALUE": the AEAD auto takes for chacha20=neon_wide
 * poly1305=neon (auto's pair on Neoverse cores without SVE) on a CPU with
 * this one's features and that core's preferences (a fused kernel's name
 * or "two-step"; exit 1 without a neon_wide kernel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "cpu.h"

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    size_t i;

    if (only != NULL && strcmp(only, "auto") == 0) {
        enum chacha_select_status st;
        const chacha20_kernel *c = chacha_select_chacha20(NULL, &st);
        const poly1305_kernel *p = chacha_select_poly1305(NULL, &st);
        const chacha20_poly1305_kernel *f;

        if (c == NULL || p == NULL)
            return 1;
        f = chacha_select_fused(c, p, 1);
        printf("chacha20=%s poly1305=%s aead=%s\n", c->name, p->name,
               f != NULL ? f->name : "two-step");
        return 0;
    }
    if (only != NULL && strcmp(only, "midr") == 0 && argc == 3) {
        unsigned int prefer = chacha_arm_core_prefer(strtoull(argv[2], NULL, 16));

        printf("%s%s%s%s%s%s\n", prefer & CHACHA_CAP_ARM_WIDE ? "armwide" : "none",
               prefer & CHACHA_CAP_ARM_WIDE_MAC ? " armwidemac" : "",
               prefer & CHACHA_CAP_ARM_WIDE_MAC1 ? " armwidemac1" : "",
               prefer & CHACHA_CAP_ARM_MAC_FWD ? " armmacfwd" : "",
               prefer & CHACHA_CAP_ARM_SVE2_WIDE ? " armsve2wide" : "",
               prefer & CHACHA_CAP_ARM_SVE_WIDE ? " armsvewide" : "");
        return 0;
    }

    if (only != NULL && strcmp(only, "midr-aead") == 0 && argc == 3) {
        unsigned int caps = chacha_cpu_caps()
                            | chacha_arm_core_prefer(strtoull(argv[2], NULL, 16));
        enum chacha_select_status st;
        const chacha20_kernel *c = chacha_select_chacha20("neon_wide", &st);
        const poly1305_kernel *p = chacha_select_poly1305("neon", &st);
        const chacha20_poly1305_kernel *f;

        if (c == NULL || p == NULL)
            return 1;
        f = chacha_select_fused_caps(c, p, 1, caps);
        printf("%s\n", f != NULL ? f->name : "two-step");
        return 0;
    }

    for (i = 0; chacha20_kernels[i] != NULL; i++) {
        const chacha20_kernel *c = chacha20_kernels[i];
        int ok = chacha_caps_ok(c->caps);

        if (only == NULL)
            printf("chacha20 %s %s\n", c->name, ok ? "yes" : "no");
        else if (strcmp(only, "chacha20") == 0 && ok)
            printf("%s\n", c->name);
    }
    for (i = 0; poly1305_kernels[i] != NULL; i++) {
        const poly1305_kernel *p = poly1305_kernels[i];
        int ok = chacha_caps_ok(p->caps);

        if (only == NULL)
            printf("poly1305 %s %s\n", p->name, ok ? "yes" : "no");
        else if (strcmp(only, "poly1305") == 0 && ok)
            printf("%s\n", p->name);
    }
    return 0;
}
