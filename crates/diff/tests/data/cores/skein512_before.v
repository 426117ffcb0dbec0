// An independent Skein-512-512 core, written from the Skein 1.3 specification for the tests of
// `skeinhw map` and `skeinhw diff --align event` (not produced by crates/rtl, laid out unlike
// it):
// - one Threefish-512 round per clock; the state register `st` holds the state BEFORE subkey
//   injection (the injected state `inj` exists only on a net) and resets to 0;
// - the extended key k_0..k_8 and the tweak t_0..t_2 sit in rings `kr`, `tr` that turn by one
//   word per subkey: at subkey s, ring word i holds k_{(s+i) mod 9} (t_{(s+i) mod 3}), so the
//   subkey adder always reads ring words 0..7 and tweak words 0, 1;
// - the Config UBI block is computed (key 0, 512-bit output), then the message blocks, then
//   the Output block (counter 0);
// - a serial digest: one 64-bit word per clock on `dout` while `dout_valid` is 1, word 0
//   first, each word BYTE-SWAPPED (big-endian on the port: `dout` printed in hex reads as the
//   digest's bytes in order).
// Mutants (one define each, for the tests): MUT_ROT (R_{7,0} = 9 instead of 8), MUT_PERM (words
// 0 and 6 of the permutation exchanged in every round), MUT_FIRST (the First flag never set on
// a message block), MUT_SUBKEY (k_{s,7} adds s xor 1 instead of s), MUT_FF (no feed-forward
// on word 0), MUT_OUT_POS (the Output block's position 16 instead of 8: only the last block
// is wrong). Not a mutant: RESET_ONES resets `st` to all ones instead of 0 (a control for the
// tests: the Output block's input, and the empty message's block, are all zeros). Nor is
// JUNK_BETWEEN: `st` holds a value that is no state (a scratch pattern) on the edges between
// blocks and while the digest is shifted out, where `running` is 0 (the case for a `when`
// qualifier in the map).
module skein512_before (
    input  wire         clk,
    input  wire         rst,
    input  wire         start,
    input  wire [511:0] blk_data,   // message block, byte 0 in [7:0] (word 0 in [63:0])
    input  wire [6:0]   blk_bytes,  // bytes of the block (0 only for the empty message)
    input  wire         blk_last,
    output reg          blk_take,   // 1 for the clock after the block was taken
    output reg  [63:0]  dout,
    output reg          dout_valid,
    output reg          done
);
    localparam [2:0] IDLE = 3'd0, LOAD = 3'd1, RUN = 3'd2, SER = 3'd3, FIN = 3'd4;
    localparam [1:0] CFG = 2'd0, MSG = 2'd1, OUT = 2'd2;
    localparam [63:0] C240 = 64'h1BD11BDAA9FC1A22;
    // Tweak word 1: Final (bit 63), First (bit 62), type (bits 61:56): Cfg 4, Msg 48, Out 63.
    localparam [5:0] T_CFG = 6'd4, T_MSG = 6'd48, T_OUT = 6'd63;
    // The Config block: schema "SHA3", version 1, output length 512 bits, no tree.
    localparam [511:0] CFG_BLK = {384'd0, 64'd512, 64'h0000000133414853};

    reg [2:0]   fsm;
    reg [1:0]   ph;          // the UBI being computed
    reg [511:0] st;          // the state before subkey rnd/4 (or after round rnd-1)
    reg [511:0] m;           // the block's input, for the feed-forward
    reg [575:0] kr;          // key ring
    reg [191:0] tr;          // tweak ring
    reg [6:0]   rnd;         // the next round, 0..72 (72: the last subkey and the feed-forward)
    reg [63:0]  pos;         // message bytes taken so far
    reg         first, last_q;
    reg [511:0] dig;
    reg [3:0]   nout;

    function [63:0] rotl;
        input [63:0] x;
        input [5:0] r;
        rotl = (x << r) | (x >> (7'd64 - {1'b0, r}));
    endfunction

    function [63:0] bswap;
        input [63:0] x;
        bswap = {x[7:0], x[15:8], x[23:16], x[31:24], x[39:32], x[47:40], x[55:48], x[63:56]};
    endfunction

    // R_{d mod 8, j} (Skein 1.3, Table 4): the four constants of round d, j = 0 in [5:0].
    function [23:0] rot_row;
        input [2:0] d8;
        case (d8)
            3'd0: rot_row = {6'd37, 6'd19, 6'd36, 6'd46};
            3'd1: rot_row = {6'd42, 6'd14, 6'd27, 6'd33};
            3'd2: rot_row = {6'd39, 6'd36, 6'd49, 6'd17};
            3'd3: rot_row = {6'd56, 6'd54, 6'd9,  6'd44};
            3'd4: rot_row = {6'd24, 6'd34, 6'd30, 6'd39};
            3'd5: rot_row = {6'd17, 6'd10, 6'd50, 6'd13};
            3'd6: rot_row = {6'd43, 6'd39, 6'd29, 6'd25};
`ifdef MUT_ROT
            default: rot_row = {6'd22, 6'd56, 6'd35, 6'd9};
`else
            default: rot_row = {6'd22, 6'd56, 6'd35, 6'd8};
`endif
        endcase
    endfunction

    // One round: MIX on word pairs (2j, 2j+1), then the permutation pi = (2,1,4,7,6,5,0,3):
    // word i of the result is MIX output pi(i).
    function [511:0] round512;
        input [511:0] x;
        input [2:0] d8;
        reg [23:0] r;
        reg [63:0] f0, f1, f2, f3, f4, f5, f6, f7;
        begin
            r = rot_row(d8);
            f0 = x[63:0] + x[127:64];     f1 = rotl(x[127:64], r[5:0]) ^ f0;
            f2 = x[191:128] + x[255:192]; f3 = rotl(x[255:192], r[11:6]) ^ f2;
            f4 = x[319:256] + x[383:320]; f5 = rotl(x[383:320], r[17:12]) ^ f4;
            f6 = x[447:384] + x[511:448]; f7 = rotl(x[511:448], r[23:18]) ^ f6;
`ifdef MUT_PERM
            round512 = {f3, f2, f5, f6, f7, f4, f1, f0};
`else
            round512 = {f3, f0, f5, f6, f7, f4, f1, f2};
`endif
        end
    endfunction

    // k_8 = C240 xor k_0 xor ... xor k_7 (Skein 1.3, section 3.3.2).
    function [575:0] extend;
        input [511:0] k;
        extend = {C240 ^ k[63:0] ^ k[127:64] ^ k[191:128] ^ k[255:192] ^ k[319:256]
                  ^ k[383:320] ^ k[447:384] ^ k[511:448], k};
    endfunction

    // The tweak ring at subkey 0: t0, t1, t2 = t0 xor t1.
    function [191:0] tweak;
        input [63:0] t0;
        input [63:0] t1;
        tweak = {t0 ^ t1, t1, t0};
    endfunction

    wire         running = (fsm == RUN);  // `st` holds a state (when JUNK_BETWEEN: only then)
    wire [4:0]   s = (rnd == 7'd72) ? 5'd18 : rnd[6:2];
`ifdef MUT_SUBKEY
    wire [63:0]  s7 = {59'd0, s ^ 5'd1};
`else
    wire [63:0]  s7 = {59'd0, s};
`endif
    // Subkey s (Skein 1.3, section 3.3.2), read from the rings' first words.
    wire [511:0] subkey = {kr[511:448] + s7, kr[447:384] + tr[127:64], kr[383:320] + tr[63:0],
                           kr[319:0]};
    wire [511:0] inj = {st[511:448] + subkey[511:448], st[447:384] + subkey[447:384],
                        st[383:320] + subkey[383:320], st[319:256] + subkey[319:256],
                        st[255:192] + subkey[255:192], st[191:128] + subkey[191:128],
                        st[127:64] + subkey[127:64], st[63:0] + subkey[63:0]};
`ifdef MUT_FF
    wire [511:0] cv = {inj[511:64] ^ m[511:64], inj[63:0]};
`else
    wire [511:0] cv = inj ^ m;
`endif
    wire [63:0]  pos_n = pos + {57'd0, blk_bytes};
`ifdef MUT_FIRST
    wire [63:0]  t1_msg = {blk_last, 1'b0, T_MSG, 56'd0};
`else
    wire [63:0]  t1_msg = {blk_last, first, T_MSG, 56'd0};
`endif

    always @(posedge clk) begin
        if (rst) begin
`ifdef RESET_ONES
            st <= {512{1'b1}};
`else
            st <= 0;
`endif
            fsm <= IDLE; ph <= CFG; m <= 0; kr <= 0; tr <= 0; rnd <= 0; pos <= 0;
            first <= 0; last_q <= 0; dig <= 0; nout <= 0;
            blk_take <= 0; dout <= 0; dout_valid <= 0; done <= 0;
        end else begin
            blk_take <= 0;
            dout_valid <= 0;
            case (fsm)
                IDLE: if (start) begin
                    // Config UBI: key 0, position 32, First and Final.
                    ph <= CFG;
                    st <= CFG_BLK;
                    m <= CFG_BLK;
                    kr <= extend(512'd0);
                    tr <= tweak(64'd32, {2'b11, T_CFG, 56'd0});
                    rnd <= 0;
                    pos <= 0;
                    first <= 1;
                    fsm <= RUN;
                end
                LOAD: begin
                    ph <= MSG;
                    st <= blk_data;
                    m <= blk_data;
                    tr <= tweak(pos_n, t1_msg);
                    pos <= pos_n;
                    first <= 0;
                    last_q <= blk_last;
                    blk_take <= 1;
                    rnd <= 0;
                    fsm <= RUN;
                end
                RUN: if (rnd != 7'd72) begin
                    st <= round512(rnd[1:0] == 2'd0 ? inj : st, rnd[2:0]);
                    if (rnd[1:0] == 2'd0) begin
                        kr <= {kr[63:0], kr[575:64]};
                        tr <= {tr[63:0], tr[191:64]};
                    end
                    rnd <= rnd + 7'd1;
                end else begin
                    // The last subkey and the feed-forward: the chaining value is the next key.
                    kr <= extend(cv);
`ifdef JUNK_BETWEEN
                    st <= {8{64'h5A5AC3C30F0F9696 ^ pos}};
`endif
                    rnd <= 0;
                    if (ph == OUT) begin
                        dig <= cv;
                        nout <= 0;
                        fsm <= SER;
                    end else if (ph == MSG && last_q) begin
                        // Output UBI: counter 0 (all-zero block), position 8, First and Final.
                        ph <= OUT;
                        st <= 512'd0;
                        m <= 512'd0;
`ifdef MUT_OUT_POS
                        tr <= tweak(64'd16, {2'b11, T_OUT, 56'd0});
`else
                        tr <= tweak(64'd8, {2'b11, T_OUT, 56'd0});
`endif
                    end else
                        fsm <= LOAD;
                end
                SER: begin
                    dout <= bswap(dig[63:0]);
                    dig <= dig >> 64;
`ifdef JUNK_BETWEEN
                    st <= ~st;
`endif
                    dout_valid <= 1;
                    nout <= nout + 4'd1;
                    if (nout == 4'd7) fsm <= FIN;
                end
                default: done <= 1;
            endcase
        end
    end
endmodule
