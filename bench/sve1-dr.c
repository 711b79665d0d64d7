/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A model probe, not part of the build: one ChaCha20 double round of 16
 * vertical SVE vectors, with SVE2's xar (-DSVE2) or with SVE (without SVE2)
 * rotations (revh for 16, tbl for 8, lsl + lsr + orr for 12 and 7), to
 * weigh an SVE-only kernel for Neoverse V1 on LLVM 19's models:
 *
 *   aarch64-linux-gnu-gcc -O2 -march=armv8.2-a+sve -S bench/sve1-dr.c -o sve1.s
 *   awk '/LOOP_START/{f=1;next} /LOOP_END/{f=0} f' sve1.s | grep -v '^\s*[/.]' > sve1.loop
 *   llvm-mca-19 -mtriple=aarch64 -mcpu=neoverse-v1 -iterations=200 sve1.loop
 *
 * (Total Cycles / 200 = cycles a double round: V1 66.4 for 128
 * instructions, 8 blocks at V1's 256-bit vectors; with -DMAD, the
 * rotations by 12 and 7 as lsr + mad (sve_wide's, 112 instructions), 64.0;
 * with -DSVE2 and -march=armv8-a+sve2, 64 instructions, N2 and V2 32.0.)
 */
#include <arm_sve.h>
#include <stdint.h>
#ifdef SVE2
#define QSTEP(a,b,d,n) do { a = svadd_u32_x(pg,a,b); d = svxar_n_u32(d,a,32-(n)); } while(0)
#else
#ifdef MAD
#define ROTS(x,n) svmad_u32_x(pg, x, svdup_n_u32(1u << (n)), svlsr_n_u32_x(pg, x, 32-(n)))
#else
#define ROTS(x,n) svorr_u32_x(pg, svlsl_n_u32_x(pg, x, n), svlsr_n_u32_x(pg, x, 32-(n)))
#endif
#define ROT(x,n) ((n)==16 ? svrevh_u32_x(pg, x) : \
                  (n)==8 ? svreinterpret_u32_u8(svtbl_u8(svreinterpret_u8_u32(x), r8)) : \
                  ROTS(x, n))
#define QSTEP(a,b,d,n) do { a = svadd_u32_x(pg,a,b); d = sveor_u32_x(pg,d,a); d = ROT(d,n); } while(0)
#endif
#define QROUND4(a0,b0,c0,d0,a1,b1,c1,d1,a2,b2,c2,d2,a3,b3,c3,d3) do { \
 QSTEP(a0,b0,d0,16); QSTEP(a1,b1,d1,16); QSTEP(a2,b2,d2,16); QSTEP(a3,b3,d3,16); \
 QSTEP(c0,d0,b0,12); QSTEP(c1,d1,b1,12); QSTEP(c2,d2,b2,12); QSTEP(c3,d3,b3,12); \
 QSTEP(a0,b0,d0,8); QSTEP(a1,b1,d1,8); QSTEP(a2,b2,d2,8); QSTEP(a3,b3,d3,8); \
 QSTEP(c0,d0,b0,7); QSTEP(c1,d1,b1,7); QSTEP(c2,d2,b2,7); QSTEP(c3,d3,b3,7); } while(0)
void rounds(uint32_t *st, int n) {
  svbool_t pg = svptrue_b32(); svbool_t pg16 = svptrue_b16();
  svuint8_t r8 = svreinterpret_u8_u32(svindex_u32(0x02010003u, 0x04040404u));
  svuint32_t x0=svld1_vnum_u32(pg,st,0),x1=svld1_vnum_u32(pg,st,1),x2=svld1_vnum_u32(pg,st,2),x3=svld1_vnum_u32(pg,st,3),
   x4=svld1_vnum_u32(pg,st,4),x5=svld1_vnum_u32(pg,st,5),x6=svld1_vnum_u32(pg,st,6),x7=svld1_vnum_u32(pg,st,7),
   x8=svld1_vnum_u32(pg,st,8),x9=svld1_vnum_u32(pg,st,9),x10=svld1_vnum_u32(pg,st,10),x11=svld1_vnum_u32(pg,st,11),
   x12=svld1_vnum_u32(pg,st,12),x13=svld1_vnum_u32(pg,st,13),x14=svld1_vnum_u32(pg,st,14),x15=svld1_vnum_u32(pg,st,15);
  for (int i = 0; i < n; i++) {
    __asm__ volatile("// LOOP_START");
    QROUND4(x0,x4,x8,x12,x1,x5,x9,x13,x2,x6,x10,x14,x3,x7,x11,x15);
    QROUND4(x0,x5,x10,x15,x1,x6,x11,x12,x2,x7,x8,x13,x3,x4,x9,x14);
    __asm__ volatile("// LOOP_END");
  }
  svst1_vnum_u32(pg,st,0,x0);svst1_vnum_u32(pg,st,1,x1);svst1_vnum_u32(pg,st,2,x2);svst1_vnum_u32(pg,st,3,x3);
  svst1_vnum_u32(pg,st,4,x4);svst1_vnum_u32(pg,st,5,x5);svst1_vnum_u32(pg,st,6,x6);svst1_vnum_u32(pg,st,7,x7);
  svst1_vnum_u32(pg,st,8,x8);svst1_vnum_u32(pg,st,9,x9);svst1_vnum_u32(pg,st,10,x10);svst1_vnum_u32(pg,st,11,x11);
  svst1_vnum_u32(pg,st,12,x12);svst1_vnum_u32(pg,st,13,x13);svst1_vnum_u32(pg,st,14,x14);svst1_vnum_u32(pg,st,15,x15);
}
