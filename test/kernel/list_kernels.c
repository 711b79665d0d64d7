/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lists the kernels compiled into this build, one per line:
 * "<primitive> <name> yes|no" (no = this CPU cannot run it).
 * With an argument (chacha20 or poly1305) prints only the usable names.
 */
#include <stdio.h>
#include <string.h>
#include "registry.h"
#include "cpu.h"

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    size_t i;

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
