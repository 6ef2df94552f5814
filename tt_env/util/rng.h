/* numpy's random generator in plain C: the stream of np.random.default_rng(entropy) (PCG64
   seeded by a SeedSequence), reproduced exactly, so that compiled code draws what the Python
   code draws from the same seed: a deck shuffled here from (seed, round, 0) is the deck the
   engine deals from (tt_env.game.cards.shuffled_deck on np.random.default_rng((seed, round,
   0))), so that a game record replays alike in both.

   Plain C, header only (every function static), no Python; the compiled kernels share it. Each
   function is numpy's (numpy/random/ in numpy's sources), and a test checks each against numpy
   over many seeds (tests/util/test_rng.py):

   - tt_rng_seed(g, entropy, n): np.random.default_rng(entropy) for a sequence of n integers
     (or one): SeedSequence's pool of four words (bit_generator.pyx: every integer as its
     little-endian 32-bit words, hashmix and mix), generate_state(4, np.uint64), then
     pcg64_set_seed (src/pcg64/pcg64.c);
   - tt_rng_next64(g): the bit generator's next 64 bits (random_raw(): the 128-bit LCG's step,
     then its XSL-RR output);
   - tt_rng_next32(g): next_uint32: the low half of a 64-bit draw, its high half kept for the
     next call (pcg64_next32; the 64-bit draws leave that half alone, as numpy's do);
   - tt_rng_interval(g, max): random_interval (src/distributions/distributions.c): 0..max by
     masked rejection, what Generator.shuffle and Generator.permutation draw;
   - tt_rng_integers(g, n): Generator.integers(n) (int64): random_bounded_uint64 with Lemire's
     method, 32 bits at a time while n - 1 fits them;
   - tt_rng_shuffle(g, items, n, size): Generator.shuffle of a one-dimensional array (so item i
     ends as the item order[i] of order = Generator.permutation(n), drawn from the same seed).

   The 128-bit arithmetic is done in 64-bit halves (numpy's fallback for compilers without a
   128-bit integer), one portable path for every compiler. */

#ifndef TT_RNG_H
#define TT_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TT_RNG_MAX_ENTROPY 8 /* integers of entropy tt_rng_seed() takes at most */

typedef struct {
    uint64_t hi, lo;
} tt_u128;

typedef struct {
    tt_u128 state, inc; /* the LCG: state = state * multiplier + inc (mod 2**128) */
    bool has_uint32;    /* next_uint32's buffered half */
    uint32_t uinteger;
} tt_rng;

/* ------------------------------------------------------------------ 128-bit arithmetic */

/* x * y: the low 64 bits, the high ones into *hi. */
static uint64_t tt_rng_mul64(uint64_t x, uint64_t y, uint64_t *hi) {
    uint64_t x0 = x & 0xffffffffULL, x1 = x >> 32, y0 = y & 0xffffffffULL, y1 = y >> 32;
    uint64_t w0 = x0 * y0;
    uint64_t t = x1 * y0 + (w0 >> 32);
    uint64_t w1 = (t & 0xffffffffULL) + x0 * y1;
    *hi = x1 * y1 + (t >> 32) + (w1 >> 32);
    return x * y;
}

/* a * b + c (mod 2**128). */
static tt_u128 tt_rng_mul_add(tt_u128 a, tt_u128 b, tt_u128 c) {
    tt_u128 r;
    r.lo = tt_rng_mul64(a.lo, b.lo, &r.hi);
    r.hi += a.hi * b.lo + a.lo * b.hi;
    r.lo += c.lo;
    r.hi += c.hi + (r.lo < c.lo);
    return r;
}

/* ------------------------------------------------------------------ the bit generator */

/* PCG64's multiplier (PCG_DEFAULT_MULTIPLIER_128). */
static const tt_u128 TT_RNG_MULTIPLIER = {2549297995355413924ULL, 4865540595714422341ULL};

static void tt_rng_step(tt_rng *g) {
    g->state = tt_rng_mul_add(g->state, TT_RNG_MULTIPLIER, g->inc);
}

/* The next 64 bits: a step, then the XSL-RR output (the halves xor-ed, rotated right by the
   top 6 bits). */
static uint64_t tt_rng_next64(tt_rng *g) {
    tt_rng_step(g);
    uint64_t x = g->state.hi ^ g->state.lo;
    unsigned rot = (unsigned)(g->state.hi >> 58);
    return (x >> rot) | (x << ((-rot) & 63));
}

/* The next 32 bits: numpy's next_uint32 (the halves of one 64-bit draw, low first). */
static uint32_t tt_rng_next32(tt_rng *g) {
    if (g->has_uint32) {
        g->has_uint32 = false;
        return g->uinteger;
    }
    uint64_t next = tt_rng_next64(g);
    g->has_uint32 = true;
    g->uinteger = (uint32_t)(next >> 32);
    return (uint32_t)(next & 0xffffffffULL);
}

/* ------------------------------------------------------------------ seeding */

/* SeedSequence's hashes (bit_generator.pyx); its 32-bit arithmetic wraps. */
static uint32_t tt_rng_hashmix(uint32_t value, uint32_t *hash_const) {
    value ^= *hash_const;
    *hash_const *= 0x931e8875U; /* MULT_A */
    value *= *hash_const;
    value ^= value >> 16;
    return value;
}

static uint32_t tt_rng_mix(uint32_t x, uint32_t y) {
    uint32_t result = 0xca01f9ddU * x - 0x4973f715U * y; /* MIX_MULT_L, MIX_MULT_R */
    result ^= result >> 16;
    return result;
}

/* np.random.default_rng(entropy) for entropy = (entropy[0], ..., entropy[n - 1]), n at most
   TT_RNG_MAX_ENTROPY (one integer or a tuple of one seeds alike). */
static void tt_rng_seed(tt_rng *g, const uint64_t *entropy, int n) {
    /* every integer as its 32-bit words, lowest first (0 as one word) */
    uint32_t words[2 * TT_RNG_MAX_ENTROPY];
    int nwords = 0;
    for (int i = 0; i < n && i < TT_RNG_MAX_ENTROPY; i++) {
        uint64_t e = entropy[i];
        do {
            words[nwords++] = (uint32_t)e;
            e >>= 32;
        } while (e);
    }
    /* SeedSequence.mix_entropy into a pool of 4 words */
    uint32_t pool[4], hash_const = 0x43b0d7e5U; /* INIT_A */
    for (int i = 0; i < 4; i++) pool[i] = tt_rng_hashmix(i < nwords ? words[i] : 0, &hash_const);
    for (int src = 0; src < 4; src++)
        for (int dst = 0; dst < 4; dst++)
            if (src != dst)
                pool[dst] = tt_rng_mix(pool[dst], tt_rng_hashmix(pool[src], &hash_const));
    for (int src = 4; src < nwords; src++)
        for (int dst = 0; dst < 4; dst++)
            pool[dst] = tt_rng_mix(pool[dst], tt_rng_hashmix(words[src], &hash_const));
    /* generate_state(4, np.uint64): 8 words, paired little-endian */
    uint64_t val[4];
    hash_const = 0x8b51f9ddU; /* INIT_B */
    for (int i = 0; i < 8; i++) {
        uint32_t data = pool[i % 4] ^ hash_const;
        hash_const *= 0x58f38dedU; /* MULT_B */
        data *= hash_const;
        data ^= data >> 16;
        if (i % 2 == 0)
            val[i / 2] = data;
        else
            val[i / 2] |= (uint64_t)data << 32;
    }
    /* pcg64_set_seed: the state val[0..1], the stream val[2..3] (high word first) */
    const tt_u128 zero = {0, 0};
    g->inc.hi = (val[2] << 1) | (val[3] >> 63);
    g->inc.lo = (val[3] << 1) | 1U;
    g->state = zero;
    tt_rng_step(g);
    g->state.lo += val[1]; /* += initstate */
    g->state.hi += val[0] + (g->state.lo < val[1]);
    tt_rng_step(g);
    g->has_uint32 = false;
    g->uinteger = 0;
}

/* ------------------------------------------------------------------ draws */

/* 0..max, uniform: numpy's random_interval (mask the draw to max's bit length, draw again while
   above max; 32-bit draws while max fits them). */
static uint64_t tt_rng_interval(tt_rng *g, uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max, value;
    for (int shift = 1; shift < 64; shift *= 2) mask |= mask >> shift;
    if (max <= 0xffffffffULL) {
        while ((value = (tt_rng_next32(g) & mask)) > max) {
        }
    } else {
        while ((value = (tt_rng_next64(g) & mask)) > max) {
        }
    }
    return value;
}

/* 0..n-1, uniform, for n >= 1: Generator.integers(n) (numpy's random_bounded_uint64,
   Lemire's method: the high half of draw * n, drawn again while the low half falls in the
   biased few). */
static int64_t tt_rng_integers(tt_rng *g, int64_t n) {
    const uint64_t rng = (uint64_t)n - 1; /* numpy's inclusive range */
    if (rng == 0) return 0;
    if (rng == 0xffffffffULL) return (int64_t)tt_rng_next32(g);
    if (rng < 0xffffffffULL) {
        const uint32_t excl = (uint32_t)rng + 1;
        uint64_t m = (uint64_t)tt_rng_next32(g) * excl;
        uint32_t leftover = (uint32_t)m;
        if (leftover < excl) {
            const uint32_t threshold = (uint32_t)(0xffffffffU - (uint32_t)rng) % excl;
            while (leftover < threshold) {
                m = (uint64_t)tt_rng_next32(g) * excl;
                leftover = (uint32_t)m;
            }
        }
        return (int64_t)(m >> 32);
    }
    const uint64_t excl = rng + 1;
    uint64_t hi, leftover = tt_rng_mul64(tt_rng_next64(g), excl, &hi);
    if (leftover < excl) {
        const uint64_t threshold = (UINT64_MAX - rng) % excl;
        while (leftover < threshold) leftover = tt_rng_mul64(tt_rng_next64(g), excl, &hi);
    }
    return (int64_t)hi;
}

/* Shuffle the n items of `size` bytes at `items` as Generator.shuffle does: for i from n - 1
   down to 1, swap item i with item random_interval(i). */
static void tt_rng_shuffle(tt_rng *g, void *items, int64_t n, size_t size) {
    unsigned char *a = items;
    for (int64_t i = n - 1; i > 0; i--) {
        unsigned char *x = a + (size_t)i * size;
        unsigned char *y = a + (size_t)tt_rng_interval(g, (uint64_t)i) * size;
        for (size_t b = 0; b < size; b++) {
            unsigned char t = x[b];
            x[b] = y[b];
            y[b] = t;
        }
    }
}

#endif /* TT_RNG_H */
