`timescale 1ns / 1ps  // a bench with a timescale must not stop on TIMESCALEMOD

// skeinhw_dpi_pkg: DPI-C imports of libskeinhw (crates/capi), the skeinhw golden model and
// Skein/Threefish library, for SystemVerilog test benches (UVM scoreboards, Verilator).
//
// Only plain DPI types cross: chandle (opaque handles), int / int unsigned (int32_t /
// uint32_t), longint unsigned (uint64_t, also size_t on LP64), byte unsigned (uint8_t), string
// (const char *). No open arrays and no svdpi.h calls, so the plain libskeinhw.a / .so is the
// whole DPI library on any simulator. Every function returns a status: SKEINHW_OK (0), or a
// negative error whose message *_error(handle) or skeinhw_last_error() returns. Byte strings go
// in as hex strings or a byte at a time, messages also as 64-bit words with a bit count
// (skeinhw_skein_update_u64), digests come out as hex (skeinhw_skein_digest_hex) or word by word
// (*_digest_u64).
//
// Skein's optional arguments (MAC key, personalization, public key, key id, nonce, tree) are a
// params handle: skeinhw_params_new(p), then one setter per option, then p goes where the C API
// takes a params pointer (skeinhw_skein_new, skeinhw_golden_add_message_hex_params); null is no
// options. The handle is the library's own struct, so the simulator never lays one out.
//
// Link: see crates/capi/README.md (libskeinhw.a or libskeinhw.so on the simulator's link line);
// examples/dpi is a complete bench with its Makefile.
//
// Example: a keyed, personalized Skein-512-256 of a 12-bit message
//
//   chandle p, h;
//   void'(skeinhw_params_new(p));
//   void'(skeinhw_params_set_hex(p, SKEINHW_PARAM_KEY, "000102030405060708090a0b0c0d0e0f"));
//   void'(skeinhw_params_set_hex(p, SKEINHW_PARAM_PERS, "7065727320782079"));
//   void'(skeinhw_params_set_tree(p, 1, 1, 2));          // optional: tree hashing
//   void'(skeinhw_skein_new(512, 256, p, h));
//   skeinhw_params_free(p);                              // the handle keeps a copy
//   void'(skeinhw_skein_update_u64(h, 64'h00_00_00_00_00_00_f0_a5, 12));  // bytes a5 f0, 12 bits
//   void'(skeinhw_skein_final(h, null, 0));
//   $display("%s", skeinhw_skein_digest_hex(h));
//   skeinhw_skein_free(h);
//
// Example: a UVM-style scoreboard call (the DUT's digest of a message against the library)
//
//   chandle h; longint unsigned want;
//   void'(skeinhw_skein_new(512, 512, null, h));
//   foreach (tr.words[i]) void'(skeinhw_skein_update_u64(h, tr.words[i], 64));
//   void'(skeinhw_skein_final(h, null, 0));            // kept in the handle
//   for (int w = 0; w < 8; w++) begin
//     void'(skeinhw_skein_digest_u64(h, w, want));
//     if (tr.digest[w] !== want) `uvm_error("SB", $sformatf("digest word %0d", w))
//   end
//   skeinhw_skein_free(h);
//
// Example: a per-round check (the DUT's state after round d against Threefish-512)
//
//   chandle tf; longint unsigned want;
//   void'(skeinhw_threefish_new(512, tf));
//   for (int i = 0; i < 8; i++) void'(skeinhw_threefish_set_key_word(tf, i, key[i]));
//   void'(skeinhw_threefish_set_tweak(tf, tweak[0], tweak[1]));
//   for (int i = 0; i < 8; i++) void'(skeinhw_threefish_set_state_word(tf, i, plaintext[i]));
//   for (int d = 0; d < 72; d++) begin
//     if (d % 4 == 0) void'(skeinhw_threefish_inject_subkey(tf, d / 4));
//     void'(skeinhw_threefish_round(tf, d));
//     @(posedge round_done);
//     for (int i = 0; i < 8; i++) begin
//       void'(skeinhw_threefish_get_state_word(tf, i, want));
//       assert (dut_state[i] == want) else $error("round %0d word %0d", d, i);
//     end
//   end
//
// The golden model, cycle by cycle: see tests/verilator.rs, which generates a test bench that
// calls skeinhw_golden_step at every clock and compares each register with
// skeinhw_golden_field_u64(g, "<register name>", 0, want).
package skeinhw_dpi_pkg;

  // Status codes (skeinhw.h).
  localparam int SKEINHW_OK = 0;
  localparam int SKEINHW_END = 1;
  localparam int SKEINHW_ERR_NULL = -1;
  localparam int SKEINHW_ERR_ARGUMENT = -2;
  localparam int SKEINHW_ERR_BUFFER = -3;
  localparam int SKEINHW_ERR_SCHEDULE = -4;
  localparam int SKEINHW_ERR_FIELD = -5;
  localparam int SKEINHW_ERR_STATE = -6;
  localparam int SKEINHW_ERR_PANIC = -7;

  // Event bits of skeinhw_golden_events.
  localparam int unsigned SKEINHW_EVENT_OUTPUT = 1;
  localparam int unsigned SKEINHW_EVENT_DIGEST = 2;
  localparam int unsigned SKEINHW_EVENT_LAST = 4;

  // The header and package version; skeinhw_version() is the linked library's.
  localparam string SKEINHW_VERSION = "0.1.0";

  // Type codes of Skein's optional strings (their Skein 1.3 type values).
  localparam int unsigned SKEINHW_PARAM_KEY = 0;
  localparam int unsigned SKEINHW_PARAM_PERS = 8;
  localparam int unsigned SKEINHW_PARAM_PUBLIC_KEY = 12;
  localparam int unsigned SKEINHW_PARAM_KEY_ID = 16;
  localparam int unsigned SKEINHW_PARAM_NONCE = 20;

  import "DPI-C" function string skeinhw_last_error();
  import "DPI-C" function string skeinhw_version();

  // Skein's optional arguments: a handle from skeinhw_params_new, passed as `params` below.
  import "DPI-C" function int skeinhw_params_new(output chandle p);
  // Appends one byte to the string of type `kind` (making it present).
  import "DPI-C" function int skeinhw_params_add_byte(input chandle p, input int unsigned kind,
                                                      input byte unsigned b);
  // Sets the whole string from hex ("" is a present empty string; an empty key is no key).
  import "DPI-C" function int skeinhw_params_set_hex(input chandle p, input int unsigned kind,
                                                     input string hex);
  // Makes the string absent again.
  import "DPI-C" function int skeinhw_params_clear(input chandle p, input int unsigned kind);
  // Yl, Yf, Ym; 0, 0, 0: no tree.
  import "DPI-C" function int skeinhw_params_set_tree(input chandle p, input int unsigned leaf,
                                                      input int unsigned fanout,
                                                      input int unsigned max_height);
  import "DPI-C" function string skeinhw_params_error(input chandle p);
  import "DPI-C" function void skeinhw_params_free(input chandle p);

  // Skein, streaming. params: null for none, or a handle from skeinhw_params_new.
  import "DPI-C" function int skeinhw_skein_new(input int unsigned state_bits,
                                                input longint unsigned out_bits,
                                                input chandle params, output chandle h);
  import "DPI-C" function int skeinhw_skein_update_u64(input chandle h,
                                                       input longint unsigned word,
                                                       input int unsigned bits);
  import "DPI-C" function int skeinhw_skein_update_hex(input chandle h, input string hex);
  // out = null, out_len = 0: keep the digest in the handle for skeinhw_skein_digest_u64.
  import "DPI-C" function int skeinhw_skein_final(input chandle h, input chandle out,
                                                  input longint unsigned out_len);
  import "DPI-C" function int skeinhw_skein_digest_u64(input chandle h, input int unsigned index,
                                                       output longint unsigned word);
  // The kept digest as lowercase hex, ceil(out_bits / 8) bytes.
  import "DPI-C" function string skeinhw_skein_digest_hex(input chandle h);
  import "DPI-C" function string skeinhw_skein_error(input chandle h);
  import "DPI-C" function void skeinhw_skein_free(input chandle h);

  // Threefish, round by round.
  import "DPI-C" function int skeinhw_threefish_new(input int unsigned state_bits,
                                                    output chandle h);
  import "DPI-C" function int skeinhw_threefish_set_key_word(input chandle h, input int unsigned i,
                                                             input longint unsigned word);
  import "DPI-C" function int skeinhw_threefish_set_tweak(input chandle h,
                                                          input longint unsigned t0,
                                                          input longint unsigned t1);
  import "DPI-C" function int skeinhw_threefish_set_state_word(input chandle h,
                                                               input int unsigned i,
                                                               input longint unsigned word);
  import "DPI-C" function int skeinhw_threefish_inject_subkey(input chandle h,
                                                              input int unsigned s);
  import "DPI-C" function int skeinhw_threefish_round(input chandle h, input int unsigned d);
  import "DPI-C" function int skeinhw_threefish_get_state_word(input chandle h,
                                                               input int unsigned i,
                                                               output longint unsigned word);
  import "DPI-C" function int skeinhw_threefish_subkey_word(input chandle h, input int unsigned s,
                                                            input int unsigned i,
                                                            output longint unsigned word);
  import "DPI-C" function string skeinhw_threefish_error(input chandle h);
  import "DPI-C" function void skeinhw_threefish_free(input chandle h);

  // The golden model: a preset name, a schedule JSON file or JSON text.
  import "DPI-C" function int skeinhw_golden_new(input string schedule, output chandle h);
  // out_bits 0: the state size.
  import "DPI-C" function int skeinhw_golden_add_message_hex(input chandle h, input string hex,
                                                             input longint unsigned out_bits);
  // The first msg_bits bits of the hex message, with params (null: none).
  import "DPI-C" function int skeinhw_golden_add_message_hex_params(input chandle h,
                                                                    input string hex,
                                                                    input longint unsigned msg_bits,
                                                                    input longint unsigned out_bits,
                                                                    input chandle params);
  import "DPI-C" function int skeinhw_golden_step(input chandle h);
  import "DPI-C" function int skeinhw_golden_cycle(input chandle h,
                                                   output longint unsigned cycle);
  import "DPI-C" function int skeinhw_golden_field_u64(input chandle h, input string name,
                                                       input int unsigned index,
                                                       output longint unsigned word);
  import "DPI-C" function int skeinhw_golden_events(input chandle h, output int unsigned events);
  import "DPI-C" function int skeinhw_golden_digest_u64(input chandle h, input int unsigned stream,
                                                        input int unsigned index,
                                                        output longint unsigned word);
  import "DPI-C" function int skeinhw_golden_shape(input chandle h, output int unsigned words,
                                                   output int unsigned slots);
  import "DPI-C" function string skeinhw_golden_error(input chandle h);
  import "DPI-C" function void skeinhw_golden_free(input chandle h);

endpackage
