#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make check-emu: the constant-time check (ct-valgrind.sh) on the emulated
# AVX-512 kernels, test/kernel/test_ct_valgrind_emu.emu (the native ones run in
# make check; valgrind hides AVX-512, so only the emulated copies show that
# source's control flow under memcheck).
exec sh "$(dirname "$0")/ct-valgrind.sh" "${builddir:-.}/test/kernel/test_ct_valgrind_emu.emu"
