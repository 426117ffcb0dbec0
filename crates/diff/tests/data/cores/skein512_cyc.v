// An independent Skein-512-512 core, written from the Skein 1.3 specification for the tests of
// `skeinhw map` and `skeinhw diff` in BOTH alignments (not produced by crates/rtl, laid out
// unlike it): its clock matches Athanasiou's eight-round schedule without the subkey-0 cycle
// and with the Config block precomputed (`ath-8r`, first_subkey_cycle=false,
// config_precomputed=true) cycle for cycle, so cycle alignment applies to it:
// - nine clocks per block and none between blocks: the clock that starts a block forms the
//   chaining value of the previous one (the feed-forward), injects subkey 0 and runs rounds
//   0..7 with subkeys 1 and 2; each of the next eight runs eight rounds and two subkeys;
// - the state register `v` holds the state AFTER subkeys 2, 4, ..., 18, its words in reverse
//   order (word 0 in [511:448]);
// - the extended key k_0..k_8 (k_8, the parity word, registered too) in `kx` and the tweak
//   t_0..t_2 in `tq`, both fixed for the block, k_0 and t_0 in the low bits;
// - the Config UBI is not computed: its chaining value, the Skein-512-512 IV (Skein 1.3,
//   Appendix C), is a constant;
// - a parallel digest `hash`, big-endian: the digest's byte 0 in [511:504] (each word
//   byte-swapped, word 0 first), for one clock with `hash_valid`, on the clock that registers
//   the Output block's last state.
// Mutants (one define each, for the tests): MUT_ROT (round instance 7 rotates MIX 0 by 9, not
// R_{7,0} = 8), MUT_PERM (round instance 7 wires words 0 and 6 of the permutation exchanged),
// MUT_FIRST (the First flag never set), MUT_SUBKEY (k_{s,7} adds s xor 1 instead of s), MUT_FF
// (no feed-forward on word 0).
module skein512_cyc (
    input  wire         clk,
    input  wire         rst,
    input  wire         start,
    input  wire [511:0] blk_data,   // message block, byte 0 in [7:0] (word 0 in [63:0])
    input  wire [6:0]   blk_bytes,  // bytes of the block (0 only for the empty message)
    input  wire         blk_last,
    output reg          blk_take,   // 1 for the clock after the block was taken
    output reg  [511:0] hash,
    output reg          hash_valid,
    output reg          done
);
    localparam [1:0] IDLE = 2'd0, BUSY = 2'd1, FIN = 2'd2;
    localparam [63:0] C240 = 64'h1BD11BDAA9FC1A22;
    // Word 0 in [63:0].
    localparam [511:0] IV = {
        64'hAE18A40B660FCC33, 64'h991112C71A75B523, 64'hEABE394CA9D5C3F4, 64'h5DB62599DF6CA7B0,
        64'h9A255629FF352CB1, 64'h8FD1934127C79BCE, 64'h0D95DE399746DF03, 64'h4903ADFF749C51CE
    };
    localparam [5:0] T_MSG = 6'd48, T_OUT = 6'd63;

    reg [1:0]   mode;
    reg [511:0] v;           // state after subkey 2*(step+1), word 0 in [511:448]
    reg [511:0] mq;          // the block's input (word 0 in [63:0]), for the feed-forward
    reg [575:0] kx;          // k_0 .. k_8
    reg [191:0] tq;          // t_0 .. t_2
    reg [3:0]   step;        // clocks of the block done, minus one (8: Threefish is done)
    reg [63:0]  pos;
    reg         first, fin_blk, out_ub;

    function [63:0] rotl;
        input [63:0] x;
        input [5:0] r;
        rotl = (x << r) | (x >> (7'd64 - {1'b0, r}));
    endfunction

    // R_{d mod 8, j} (Skein 1.3, Table 4).
    function [5:0] rc;
        input [2:0] d;
        input [1:0] j;
        reg [23:0] row;
        begin
            case (d)
                3'd0: row = {6'd37, 6'd19, 6'd36, 6'd46};
                3'd1: row = {6'd42, 6'd14, 6'd27, 6'd33};
                3'd2: row = {6'd39, 6'd36, 6'd49, 6'd17};
                3'd3: row = {6'd56, 6'd54, 6'd9,  6'd44};
                3'd4: row = {6'd24, 6'd34, 6'd30, 6'd39};
                3'd5: row = {6'd17, 6'd10, 6'd50, 6'd13};
                3'd6: row = {6'd43, 6'd39, 6'd29, 6'd25};
`ifdef MUT_ROT
                default: row = {6'd22, 6'd56, 6'd35, 6'd9};
`else
                default: row = {6'd22, 6'd56, 6'd35, 6'd8};
`endif
            endcase
            rc = row[6 * j +: 6];
        end
    endfunction

    // Round d mod 8: four MIXes, then pi = (2,1,4,7,6,5,0,3): new word i is old word pi(i).
    function [511:0] round512;
        input [511:0] x;
        input [2:0] d;
        reg [511:0] f;
        integer j;
        begin
            for (j = 0; j < 4; j = j + 1) begin
                f[128 * j +: 64] = x[128 * j +: 64] + x[128 * j + 64 +: 64];
                f[128 * j + 64 +: 64] = rotl(x[128 * j + 64 +: 64], rc(d, j[1:0]))
                                        ^ f[128 * j +: 64];
            end
`ifdef MUT_PERM
            if (d == 3'd7)
                round512 = {f[255:192], f[191:128], f[383:320], f[447:384], f[511:448],
                            f[319:256], f[127:64], f[63:0]};
            else
`endif
            round512 = {f[255:192], f[63:0], f[383:320], f[447:384], f[511:448],
                        f[319:256], f[127:64], f[191:128]};
        end
    endfunction

    // x plus subkey s (Skein 1.3, section 3.3.2); k holds k_0..k_8, t holds t_0..t_2.
    function [511:0] inject;
        input [511:0] x;
        input [575:0] k;
        input [191:0] t;
        input [4:0] s;
        integer i;
        reg [63:0] w;
        begin
            for (i = 0; i < 8; i = i + 1) begin
                w = k[64 * ((s + i) % 9) +: 64];
                if (i == 5) w = w + t[64 * (s % 3) +: 64];
                if (i == 6) w = w + t[64 * ((s + 1) % 3) +: 64];
`ifdef MUT_SUBKEY
                if (i == 7) w = w + {59'd0, s ^ 5'd1};
`else
                if (i == 7) w = w + {59'd0, s};
`endif
                inject[64 * i +: 64] = x[64 * i +: 64] + w;
            end
        end
    endfunction

    // Eight rounds from the state after subkey 2p: subkeys 2p+1 and 2p+2 after rounds 3, 7.
    function [511:0] eight;
        input [511:0] x;
        input [575:0] k;
        input [191:0] t;
        input [3:0] p;
        reg [511:0] y;
        integer d;
        begin
            y = x;
            for (d = 0; d < 8; d = d + 1) begin
                y = round512(y, d[2:0]);
                if (d == 3) y = inject(y, k, t, {p, 1'b1});
            end
            eight = inject(y, k, t, {p, 1'b0} + 5'd2);
        end
    endfunction

    // The extended key: k_8 = C240 xor k_0 xor ... xor k_7.
    function [575:0] ext;
        input [511:0] k;
        ext = {C240 ^ k[63:0] ^ k[127:64] ^ k[191:128] ^ k[255:192] ^ k[319:256]
               ^ k[383:320] ^ k[447:384] ^ k[511:448], k};
    endfunction

    // Word order reversed (the same function both ways).
    function [511:0] rev;
        input [511:0] x;
        integer i;
        for (i = 0; i < 8; i = i + 1) rev[64 * i +: 64] = x[64 * (7 - i) +: 64];
    endfunction

    // Each word byte-swapped, word order reversed: the digest's byte 0 in [511:504].
    function [511:0] bigend;
        input [511:0] x;
        integer b;
        for (b = 0; b < 64; b = b + 1) bigend[511 - 8 * b -: 8] = x[8 * b +: 8];
    endfunction

    wire [511:0] y = rev(v);          // the state, word 0 in [63:0]
`ifdef MUT_FF
    wire [511:0] cv = {y[511:64] ^ mq[511:64], y[63:0]};
`else
    wire [511:0] cv = y ^ mq;
`endif
    // The block that starts on this clock: a message block or the Output block (counter 0,
    // position 8, First and Final).
    wire         msg_next = (mode == IDLE) || !fin_blk;
    wire [63:0]  pos_n = pos + {57'd0, blk_bytes};
`ifdef MUT_FIRST
    wire         first_bit = 1'b0;
`else
    wire         first_bit = first;
`endif
    wire [127:0] t_next = msg_next ? {blk_last, first_bit, T_MSG, 56'd0, pos_n}
                                   : {2'b11, T_OUT, 56'd0, 64'd8};
    wire [191:0] tx_next = {t_next[63:0] ^ t_next[127:64], t_next};
    wire [575:0] k_next = ext(mode == IDLE ? IV : cv);
    wire [511:0] m_next = msg_next ? blk_data : 512'd0;
    wire [511:0] s_first = eight(inject(m_next, k_next, tx_next, 5'd0), k_next, tx_next, 4'd0);
    wire [511:0] s_run = eight(y, kx, tq, step + 4'd1);

    always @(posedge clk) begin
        if (rst) begin
            mode <= IDLE; v <= 0; mq <= 0; kx <= 0; tq <= 0; step <= 0; pos <= 0;
            first <= 1; fin_blk <= 0; out_ub <= 0;
            blk_take <= 0; hash <= 0; hash_valid <= 0; done <= 0;
        end else begin
            blk_take <= 0;
            hash_valid <= 0;
            if ((mode == IDLE && start) || (mode == BUSY && step == 4'd8 && !out_ub)) begin
                // A block starts: feed-forward, subkeys 0..2, rounds 0..7.
                v <= rev(s_first);
                mq <= m_next;
                kx <= k_next;
                tq <= tx_next;
                step <= 0;
                mode <= BUSY;
                if (msg_next) begin
                    pos <= pos_n;
                    first <= 0;
                    fin_blk <= blk_last;
                    blk_take <= 1;
                end else
                    out_ub <= 1;
            end else if (mode == BUSY && step != 4'd8) begin
                v <= rev(s_run);
                step <= step + 4'd1;
                if (out_ub && step == 4'd7) begin
                    // The Output block's input is zero: its chaining value is the state.
                    hash <= bigend(s_run);
                    hash_valid <= 1;
                end
            end else if (mode == BUSY) begin
                mode <= FIN;
                done <= 1;
            end
        end
    end
endmodule
