// skeinhw_dpi_pkg: DPI-C imports of libskeinhw (crates/capi), the skeinhw golden model and
// Skein/Threefish library, for SystemVerilog test benches (UVM scoreboards, Verilator).
//
// Only plain C types cross: chandle (opaque handles), int / int unsigned (int32_t / uint32_t),
// longint unsigned (uint64_t, also size_t on LP64), string (const char *). No open arrays, so
// no simulator DPI symbols are needed. Every function returns a status: SKEINHW_OK (0), or a
// negative error whose message *_error(handle) or skeinhw_last_error() returns. Byte buffers
// (uint8_t *) are not passed from SystemVerilog: messages go in as 64-bit words
// (skeinhw_skein_update_u64) or hex strings (skeinhw_golden_add_message_hex), digests come out
// word by word (*_digest_u64).
//
// Link: see crates/capi/README.md (libskeinhw.a or libskeinhw.so on the simulator's link line).
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

  import "DPI-C" function string skeinhw_last_error();

  // Skein, streaming. params: null for none.
  import "DPI-C" function int skeinhw_skein_new(input int unsigned state_bits,
                                                input longint unsigned out_bits,
                                                input chandle params, output chandle h);
  import "DPI-C" function int skeinhw_skein_update_u64(input chandle h,
                                                       input longint unsigned word,
                                                       input int unsigned bits);
  // out = null, out_len = 0: keep the digest in the handle for skeinhw_skein_digest_u64.
  import "DPI-C" function int skeinhw_skein_final(input chandle h, input chandle out,
                                                  input longint unsigned out_len);
  import "DPI-C" function int skeinhw_skein_digest_u64(input chandle h, input int unsigned index,
                                                       output longint unsigned word);
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
