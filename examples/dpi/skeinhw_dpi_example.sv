`timescale 1ns / 1ps

// The DPI-C example bench: every Skein option from SystemVerilog through skeinhw_dpi_pkg.
// Each line of cases.txt (official KAT values, pyskein's and the spec-shaped reference's; none
// from this library) is hashed twice: by the streaming Skein (options through a params handle,
// the message a byte at a time with the last byte's bit count) and, for Skein-512 cases, by the
// cycle-accurate golden model of the ath-1r core. Prints "PASS <name>" or "FAIL <name> ..." per
// case and a summary line "PASS: ..." or "FAIL: ..."; exits non-zero on any failure.
//
// Build and run: see README.md here (make -C examples/dpi from the repository root).
// +cases=FILE: the cases (default examples/dpi/cases.txt, from the repository root).
module skeinhw_dpi_example;
  import skeinhw_dpi_pkg::*;

  int failures = 0, checks = 0;

  function automatic void check(bit ok, string name, string what);
    checks++;
    if (ok) return;
    failures++;
    $display("FAIL %s: %s", name, what);
  endfunction

  // "-": absent, ".": present and empty, else the hex itself.
  function automatic bit present(string field);
    return field != "-";
  endfunction

  function automatic string hex_of(string field);
    return field == "." ? "" : field;
  endfunction

  // A params handle with the case's options: the key a byte at a time (the feeder for bytes
  // that come from a bus or an array), the other strings from hex, the tree's three numbers.
  function automatic chandle make_params(string name, string key, string pers, string pk,
                                         string kid, string nonce, int unsigned yl,
                                         int unsigned yf, int unsigned ym);
    chandle p;
    string text;
    if (skeinhw_params_new(p) != SKEINHW_OK) $fatal(1, "%s", skeinhw_last_error());
    if (present(key)) begin
      text = hex_of(key);
      if (text.len() == 0) void'(skeinhw_params_set_hex(p, SKEINHW_PARAM_KEY, ""));
      for (int i = 0; i < text.len() / 2; i++)
        void'(skeinhw_params_add_byte(p, SKEINHW_PARAM_KEY,
                                      8'(text.substr(2 * i, 2 * i + 1).atohex())));
    end
    if (present(pers)) void'(skeinhw_params_set_hex(p, SKEINHW_PARAM_PERS, hex_of(pers)));
    if (present(pk)) void'(skeinhw_params_set_hex(p, SKEINHW_PARAM_PUBLIC_KEY, hex_of(pk)));
    if (present(kid)) void'(skeinhw_params_set_hex(p, SKEINHW_PARAM_KEY_ID, hex_of(kid)));
    if (present(nonce)) void'(skeinhw_params_set_hex(p, SKEINHW_PARAM_NONCE, hex_of(nonce)));
    check(skeinhw_params_set_tree(p, yl, yf, ym) == SKEINHW_OK, name, skeinhw_params_error(p));
    return p;
  endfunction

  // Streaming Skein: the message byte by byte, the last byte with its bit count.
  function automatic string skein_hex(string name, int unsigned state_bits,
                                      longint unsigned out_bits, longint unsigned msg_bits,
                                      string msg, chandle p);
    chandle h;
    string digest;
    longint unsigned left = msg_bits;
    if (skeinhw_skein_new(state_bits, out_bits, p, h) != SKEINHW_OK) begin
      check(0, name, skeinhw_last_error());
      return "";
    end
    for (int i = 0; left > 0; i++) begin
      int unsigned bits = left >= 8 ? 8 : int'(left);
      check(skeinhw_skein_update_u64(h, 64'(msg.substr(2 * i, 2 * i + 1).atohex()), bits)
            == SKEINHW_OK, name, skeinhw_skein_error(h));
      left -= 64'(bits);
    end
    check(skeinhw_skein_final(h, null, 0) == SKEINHW_OK, name, skeinhw_skein_error(h));
    digest = skeinhw_skein_digest_hex(h);
    skeinhw_skein_free(h);
    return digest;
  endfunction

  // The golden model's digest of stream `s`, `n` bytes, as hex (its words are little-endian).
  function automatic string golden_hex(chandle g, int unsigned s, int unsigned n);
    string digest = "";
    longint unsigned w = 0;
    for (int unsigned i = 0; i < n; i++) begin
      if (i % 8 == 0) void'(skeinhw_golden_digest_u64(g, s, i / 8, w));
      digest = {digest, $sformatf("%02h", 8'(w >> (8 * (i % 8))))};
    end
    return digest;
  endfunction

  initial begin
    string path, line, name, msg, key, pers, pk, kid, nonce, want, got;
    string names[$], wants[$];
    int unsigned sizes[$];
    int fd, state_bits, yl, yf, ym, cases = 0, golden_streams = 0, failed_before;
    longint unsigned out_bits, msg_bits, cycles = 0;
    chandle g, p;

    if (skeinhw_version() != SKEINHW_VERSION)
      check(0, "version", $sformatf("library %s, package %s", skeinhw_version(),
                                    SKEINHW_VERSION));
    if (!$value$plusargs("cases=%s", path)) path = "examples/dpi/cases.txt";
    fd = $fopen(path, "r");
    if (fd == 0) $fatal(1, "cannot open %s (give +cases=FILE)", path);
    if (skeinhw_golden_new("ath-1r", g) != SKEINHW_OK) $fatal(1, "%s", skeinhw_last_error());

    while ($fgets(line, fd) > 0) begin
      if (line.len() < 2 || line[0] == "#") continue;
      if ($sscanf(line, "%s %d %d %d %s %s %s %s %s %s %d %d %d %s", name, state_bits, out_bits,
                  msg_bits, msg, key, pers, pk, kid, nonce, yl, yf, ym, want) != 14)
        $fatal(1, "%s: a line with other than 14 fields: %s", path, line);
      cases++;
      failed_before = failures;
      msg = hex_of(msg);
      p = make_params(name, key, pers, pk, kid, nonce, yl, yf, ym);
      got = skein_hex(name, state_bits, out_bits, msg_bits, msg, p);
      check(got == want, name, $sformatf("the streaming Skein gives %s, want %s", got, want));
      if (state_bits == 512) begin
        // The same hash through the golden model of the ath-1r core (Skein-512).
        check(skeinhw_golden_add_message_hex_params(g, msg, msg_bits, out_bits, p) == SKEINHW_OK,
              name, skeinhw_golden_error(g));
        names.push_back(name);
        wants.push_back(want);
        sizes.push_back(int'((out_bits + 7) / 8));
      end
      skeinhw_params_free(p);
      if (failures == failed_before) $display("PASS %s", name);
    end
    $fclose(fd);

    // Bad input is an error with a message, not a crash: Yl = 0 is not a tree.
    void'(skeinhw_params_new(p));
    check(skeinhw_params_set_tree(p, 0, 1, 2) == SKEINHW_ERR_ARGUMENT, "bad-tree",
          "set_tree(0, 1, 2) is accepted");
    check(skeinhw_params_error(p) != "", "bad-tree", "no message");
    skeinhw_params_free(p);

    while (skeinhw_golden_step(g) == SKEINHW_OK) cycles++;
    foreach (names[s]) begin
      got = golden_hex(g, s, sizes[s]);
      check(got == wants[s], names[s],
            $sformatf("the golden model gives %s, want %s", got, wants[s]));
      golden_streams++;
    end
    skeinhw_golden_free(g);

    if (cases == 0) check(0, path, "no cases");
    if (failures == 0)
      $display("PASS: %0d cases (%0d also through the golden model, %0d cycles), %0d checks",
               cases, golden_streams, cycles, checks);
    else $display("FAIL: %0d of %0d checks", failures, checks);
    if (failures != 0) $fatal(1, "%0d failures", failures);
    $finish;
  end
endmodule
