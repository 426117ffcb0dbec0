/* The smallest C program over the library: Skein-512-256 of "abc" and the versions. Used by
 * tests/shared_lib.rs (linked against libskeinhw.so through its SONAME) and for the static
 * size in crates/capi/README.md.
 *
 * Prints "<digest hex> <library version>"; exits 1 when the header's version is not the
 * library's. */
#include <stdio.h>
#include <string.h>

#include "skeinhw.h"

int main(void) {
    uint8_t out[32];
    if (skeinhw_skein_hash(512, 256, (const uint8_t *)"abc", 24, NULL, out, sizeof out) != SKEINHW_OK) {
        fprintf(stderr, "%s\n", skeinhw_last_error());
        return 1;
    }
    for (size_t i = 0; i < sizeof out; i++) printf("%02x", out[i]);
    printf(" %s\n", skeinhw_version());
    if (strcmp(skeinhw_version(), SKEINHW_VERSION) != 0) {
        fprintf(stderr, "header %s, library %s\n", SKEINHW_VERSION, skeinhw_version());
        return 1;
    }
    return 0;
}
