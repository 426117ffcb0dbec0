/* The C API from C: the official golden KAT file through skeinhw_skein_hash, the round-level
 * Threefish handle against the library's block cipher and an official Threefish vector, the
 * golden model's digest, and bad input across the boundary.
 *
 *   cc -std=c11 -Wall -Wextra -Werror -I crates/capi/include crates/capi/tests/c/test_capi.c \
 *      target/debug/libskeinhw.a -lpthread -ldl -lm -o test_capi
 *   ./test_capi vectors/skein/skein_golden_kat.txt
 *
 * Prints "PASS: ..." and exits 0, or prints each failure and exits 1. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skeinhw.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        checks++;                                                                            \
        if (!(cond)) {                                                                       \
            failures++;                                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fprintf(stderr, "\n");                                                           \
        }                                                                                    \
    } while (0)

/* A bad call: the expected status and a non-empty message. */
#define BAD(call, want)                                                                      \
    do {                                                                                     \
        int s_ = (call);                                                                     \
        CHECK(s_ == (want), "%s returned %d, want %d (%s)", #call, s_, (want),               \
              skeinhw_last_error());                                                         \
        CHECK(strlen(skeinhw_last_error()) > 0, "%s left no message", #call);                \
    } while (0)

enum { MAX_BYTES = 4096 };

struct entry {
    int line;
    uint32_t state_bits;
    uint64_t out_bits, msg_bits;
    uint8_t msg[MAX_BYTES], key[MAX_BYTES], result[MAX_BYTES];
    size_t msg_len, key_len, result_len;
    unsigned leaf, node, levels;
};

static size_t hex_line(const char *s, uint8_t *out, size_t len) {
    while (*s) {
        while (isspace((unsigned char)*s)) s++;
        if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1])) break;
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1 || len >= MAX_BYTES) break;
        out[len++] = (uint8_t)v;
        s += 2;
    }
    return len;
}

static void run_entry(const struct entry *e) {
    struct skeinhw_params p;
    memset(&p, 0, sizeof p);
    p.key = e->key;
    p.key_len = e->key_len;
    p.tree_leaf = (uint8_t)e->leaf;
    p.tree_fanout = (uint8_t)e->node;
    p.tree_max_height = (uint8_t)e->levels;
    uint8_t out[MAX_BYTES];
    int s = skeinhw_skein_hash(e->state_bits, e->out_bits, e->msg, e->msg_bits, &p, out,
                               e->result_len);
    CHECK(s == SKEINHW_OK, "KAT line %d: status %d (%s)", e->line, s, skeinhw_last_error());
    CHECK(s != SKEINHW_OK || memcmp(out, e->result, e->result_len) == 0,
          "KAT line %d: digest differs", e->line);
}

/* Parses skein_golden_kat.txt (the NIST CD's format) and hashes every entry; returns the
 * number of entries. */
static int golden_kat(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "FAIL: cannot open %s\n", path);
        failures++;
        return 0;
    }
    static struct entry e;
    char line[1024];
    int n = 0, lineno = 0, in_entry = 0;
    enum { NONE, MSG, KEY, RESULT } mode = NONE;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (strncmp(line, ":Skein-", 7) == 0) {
            memset(&e, 0, sizeof e);
            e.line = lineno;
            unsigned long long out_bits, msg_bits;
            if (sscanf(line, ":Skein-%" SCNu32 ": %llu-bit hash, msgLen = %llu bits",
                       &e.state_bits, &out_bits, &msg_bits) != 3) {
                fprintf(stderr, "FAIL: %s:%d: bad header\n", path, lineno);
                failures++;
                break;
            }
            e.out_bits = out_bits;
            e.msg_bits = msg_bits;
            const char *tree = strstr(line, "Tree:");
            if (tree) sscanf(tree, "Tree: leaf=%x, node=%x, maxLevels=%x", &e.leaf, &e.node,
                             &e.levels);
            in_entry = 1;
            mode = NONE;
        } else if (!in_entry) {
            continue;
        } else if (strncmp(line, "Message data:", 13) == 0) {
            mode = MSG;
        } else if (strncmp(line, "MAC key", 7) == 0) {
            mode = KEY;
        } else if (strncmp(line, "Result:", 7) == 0) {
            mode = RESULT;
        } else if (strncmp(line, "----", 4) == 0) {
            run_entry(&e);
            n++;
            in_entry = 0;
        } else if (mode == MSG) {
            e.msg_len = hex_line(line, e.msg, e.msg_len);
        } else if (mode == KEY) {
            e.key_len = hex_line(line, e.key, e.key_len);
        } else if (mode == RESULT) {
            e.result_len = hex_line(line, e.result, e.result_len);
        }
    }
    fclose(f);
    return n;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t next_word(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The round-level handle (subkey injection every 4 rounds, Nr rounds) against the library's
 * one-call block cipher, for random keys, tweaks and blocks of every size. */
static int rounds_against_block_cipher(void) {
    static const uint32_t sizes[3] = {256, 512, 1024};
    int compared = 0;
    for (int k = 0; k < 3; k++) {
        uint32_t bits = sizes[k], nw = bits / 64, nr = bits == 1024 ? 80 : 72;
        for (int trial = 0; trial < 4; trial++) {
            uint64_t key[16], tweak[2], block[16], state[16];
            uint8_t kb[128], tb[16], bb[128];
            for (uint32_t i = 0; i < nw; i++) key[i] = next_word(), block[i] = next_word();
            tweak[0] = next_word();
            tweak[1] = next_word();
            for (uint32_t i = 0; i < nw; i++)
                for (int b = 0; b < 8; b++) {
                    kb[8 * i + b] = (uint8_t)(key[i] >> (8 * b));
                    bb[8 * i + b] = (uint8_t)(block[i] >> (8 * b));
                }
            for (int b = 0; b < 16; b++) tb[b] = (uint8_t)(tweak[b / 8] >> (8 * (b % 8)));

            skeinhw_threefish *h = NULL;
            CHECK(skeinhw_threefish_new(bits, &h) == SKEINHW_OK, "threefish_new %u", bits);
            CHECK(skeinhw_threefish_set_key_tweak(h, key, nw, tweak[0], tweak[1]) == SKEINHW_OK,
                  "set_key_tweak");
            CHECK(skeinhw_threefish_set_state(h, block, nw) == SKEINHW_OK, "set_state");
            for (uint32_t d = 0; d < nr; d++) {
                if (d % 4 == 0) skeinhw_threefish_inject_subkey(h, d / 4);
                CHECK(skeinhw_threefish_round(h, d) == SKEINHW_OK, "round %u", d);
            }
            CHECK(skeinhw_threefish_inject_subkey(h, nr / 4) == SKEINHW_OK, "last subkey");
            CHECK(skeinhw_threefish_get_state(h, state, nw) == SKEINHW_OK, "get_state");
            skeinhw_threefish_free(h);

            CHECK(skeinhw_threefish_encrypt(bits, kb, nw * 8, tb, 16, bb, nw * 8) == SKEINHW_OK,
                  "encrypt");
            for (uint32_t i = 0; i < nw; i++) {
                uint64_t w = 0;
                for (int b = 7; b >= 0; b--) w = (w << 8) | bb[8 * i + b];
                CHECK(w == state[i], "Threefish-%u word %u: rounds %016" PRIx64
                      " block %016" PRIx64, bits, i, state[i], w);
            }
            compared++;
        }
    }
    return compared;
}

/* three_256_01 of threefish_vectors_from_golden_kat_internals.txt (E(P) xor P). */
static void official_threefish_256(void) {
    const uint64_t key[4] = {0x1716151413121110u, 0x1F1E1D1C1B1A1918u, 0x2726252423222120u,
                             0x2F2E2D2C2B2A2928u};
    const uint64_t in[4] = {0xF8F9FAFBFCFDFEFFu, 0xF0F1F2F3F4F5F6F7u, 0xE8E9EAEBECEDEEEFu,
                            0xE0E1E2E3E4E5E6E7u};
    const uint64_t want[4] = {0x277610F5036C2E1Fu, 0x25FB2ADD1267773Eu, 0x9E1D67B3E4B06872u,
                              0x3F76BC7651B39682u};
    skeinhw_threefish *h = NULL;
    skeinhw_threefish_new(256, &h);
    skeinhw_threefish_set_key_tweak(h, key, 4, 0x0706050403020100u, 0x0F0E0D0C0B0A0908u);
    for (uint32_t i = 0; i < 4; i++) skeinhw_threefish_set_state_word(h, i, in[i]);
    for (uint32_t d = 0; d < 72; d++) {
        if (d % 4 == 0) skeinhw_threefish_inject_subkey(h, d / 4);
        skeinhw_threefish_round(h, d);
    }
    skeinhw_threefish_inject_subkey(h, 18);
    for (uint32_t i = 0; i < 4; i++) {
        uint64_t w = 0;
        CHECK(skeinhw_threefish_get_state_word(h, i, &w) == SKEINHW_OK, "get_state_word");
        CHECK((w ^ in[i]) == want[i], "three_256_01 word %u", i);
    }
    skeinhw_threefish_free(h);
}

/* The golden model of ath-1r on "abc": runs to its end, one digest event, the digest equal to
 * the one-shot hash. */
static void golden_model(void) {
    uint8_t want[64], got[64];
    const uint8_t abc[3] = {'a', 'b', 'c'};
    CHECK(skeinhw_skein_hash(512, 512, abc, 24, NULL, want, 64) == SKEINHW_OK, "hash abc");
    skeinhw_golden *g = NULL;
    CHECK(skeinhw_golden_new("ath-1r", &g) == SKEINHW_OK, "golden_new");
    CHECK(skeinhw_golden_add_message(g, abc, 24, 0, NULL) == SKEINHW_OK, "add_message");
    int digests = 0, cycles = 0, s;
    while ((s = skeinhw_golden_step(g)) == SKEINHW_OK && cycles < 100000) {
        uint32_t ev = 0;
        uint64_t word = 0;
        skeinhw_golden_events(g, &ev);
        if (ev & SKEINHW_EVENT_DIGEST) digests++;
        CHECK(skeinhw_golden_field_u64(g, "slot0_state_7", 0, &word) == SKEINHW_OK,
              "field slot0_state_7: %s", skeinhw_golden_error(g));
        cycles++;
    }
    CHECK(s == SKEINHW_END, "step ends with SKEINHW_END, got %d", s);
    CHECK(digests == 1 && cycles > 20, "%d digests in %d cycles", digests, cycles);
    CHECK(skeinhw_golden_digest(g, 0, got, sizeof got) == SKEINHW_OK, "digest");
    CHECK(memcmp(got, want, 64) == 0, "golden digest differs from the one-shot hash");
    skeinhw_golden_free(g);
}

static void bad_input(void) {
    uint8_t out[64];
    BAD(skeinhw_skein_hash(512, 512, NULL, 8, NULL, out, 64), SKEINHW_ERR_NULL);
    BAD(skeinhw_skein_hash(512, 512, NULL, 0, NULL, out, 63), SKEINHW_ERR_BUFFER);
    BAD(skeinhw_skein_hash(500, 512, NULL, 0, NULL, out, 64), SKEINHW_ERR_ARGUMENT);
    struct skeinhw_params p;
    memset(&p, 0, sizeof p);
    p.key_len = 32; /* NULL key with a length */
    BAD(skeinhw_skein_hash(512, 512, NULL, 0, &p, out, 64), SKEINHW_ERR_NULL);
    memset(&p, 0, sizeof p);
    p.tree_leaf = 1; /* a partial tree */
    BAD(skeinhw_skein_hash(512, 512, NULL, 0, &p, out, 64), SKEINHW_ERR_ARGUMENT);

    skeinhw_skein *h = NULL;
    BAD(skeinhw_skein_update(NULL, out, 1), SKEINHW_ERR_NULL);
    CHECK(skeinhw_skein_new(256, 256, NULL, &h) == SKEINHW_OK, "skein_new");
    BAD(skeinhw_skein_update_bits(h, out, 1, 9), SKEINHW_ERR_ARGUMENT);
    CHECK(strlen(skeinhw_skein_error(h)) > 0, "the handle keeps its message");
    BAD(skeinhw_skein_final(h, out, 31), SKEINHW_ERR_BUFFER);
    skeinhw_skein_free(h);
    skeinhw_skein_free(NULL);

    skeinhw_threefish *t = NULL;
    BAD(skeinhw_threefish_new(0, &t), SKEINHW_ERR_ARGUMENT);
    CHECK(skeinhw_threefish_new(512, &t) == SKEINHW_OK, "threefish_new");
    BAD(skeinhw_threefish_round(t, 1000), SKEINHW_ERR_ARGUMENT);
    BAD(skeinhw_threefish_get_state(t, NULL, 8), SKEINHW_ERR_NULL);
    uint64_t st[4];
    BAD(skeinhw_threefish_get_state(t, st, 4), SKEINHW_ERR_BUFFER);
    skeinhw_threefish_free(t);

    skeinhw_golden *g = NULL;
    BAD(skeinhw_golden_new("no-such-preset", &g), SKEINHW_ERR_SCHEDULE);
    BAD(skeinhw_golden_new("{ not json", &g), SKEINHW_ERR_SCHEDULE);
    BAD(skeinhw_golden_new(NULL, &g), SKEINHW_ERR_NULL);
    CHECK(skeinhw_golden_new("long-iter-256", &g) == SKEINHW_OK, "golden_new");
    CHECK(skeinhw_golden_add_message_hex(g, "00ff", 0) == SKEINHW_OK, "add hex");
    CHECK(skeinhw_golden_step(g) == SKEINHW_OK, "step");
    uint64_t w;
    BAD(skeinhw_golden_field_u64(g, "no_such_field", 0, &w), SKEINHW_ERR_FIELD);
    BAD(skeinhw_golden_field_u64(g, "slot0_state_0", 0, NULL), SKEINHW_ERR_NULL);
    uint64_t words[2];
    size_t n = 0;
    BAD(skeinhw_golden_field(g, "slot0_key", words, 2, &n), SKEINHW_ERR_BUFFER);
    CHECK(n == 5, "slot0_key of a 256-bit state has 5 words, got %zu", n);
    skeinhw_golden_free(g);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s skein_golden_kat.txt\n", argv[0]);
        return 2;
    }
    int kat = golden_kat(argv[1]);
    CHECK(kat > 400, "the golden KAT file has %d entries", kat);
    int rounds = rounds_against_block_cipher();
    official_threefish_256();
    golden_model();
    bad_input();
    if (failures) {
        fprintf(stderr, "%d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("PASS: %d golden KAT entries, %d Threefish blocks round by round, %d checks\n", kat,
           rounds, checks);
    return 0;
}
