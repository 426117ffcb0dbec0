// An independent Skein-512-512 core, written from the Skein 1.3 specification for the tests of
// `skeinhw map` and `skeinhw diff --align event` (not produced by crates/rtl, laid out unlike
// it):
// - eight Threefish-512 rounds per clock (unroll 8: eight round instances, each with its own
//   constant row R_{r,j}, r = 0..7) and two subkey injections per clock, after rounds 3 and 7;
// - the state register `sa` holds the state AFTER subkey injection, but only every other
//   subkey (after subkeys 0, 2, ..., 18), then the chaining value (the feed-forward);
// - key `kw` (k_0..k_7; k_8 is a net) and tweak `tw` (t_0, t_1; t_2 is a net) are fixed
//   registers: subkey s picks k_{(s+i) mod 9} and t_{s mod 3}, t_{(s+1) mod 3};
// - the Config UBI is not computed: its chaining value, the Skein-512-512 IV (Skein 1.3,
//   Appendix C), is a constant;
// - a parallel digest: all eight words on `digest` (word 0 in [63:0], little-endian as the
//   spec's words) for one clock with `digest_valid`.
// Mutants (one define each, for the tests): MUT_ROT (round instance 7 rotates MIX 0 by 9, not
// R_{7,0} = 8), MUT_PERM (round instance 7 wires words 0 and 6 of the permutation exchanged),
// MUT_FIRST (the First flag never set), MUT_SUBKEY (k_{s,7} adds s xor 1 instead of s), MUT_FF
// (no feed-forward on word 0).
module skein512_u8 (
    input  wire         clk,
    input  wire         rst,
    input  wire         start,
    input  wire [511:0] blk_data,   // message block, byte 0 in [7:0] (word 0 in [63:0])
    input  wire [6:0]   blk_bytes,  // bytes of the block (0 only for the empty message)
    input  wire         blk_last,
    output reg          blk_take,   // 1 for the clock after the block was taken
    output reg  [511:0] digest,
    output reg          digest_valid,
    output reg          done
);
    localparam [2:0] IDLE = 3'd0, LOAD = 3'd1, OUTLOAD = 3'd2, INJ0 = 3'd3, RUN = 3'd4,
                     FF = 3'd5, FIN = 3'd6;
    localparam [63:0] C240 = 64'h1BD11BDAA9FC1A22;
    localparam [511:0] IV = {
        64'hAE18A40B660FCC33, 64'h991112C71A75B523, 64'hEABE394CA9D5C3F4, 64'h5DB62599DF6CA7B0,
        64'h9A255629FF352CB1, 64'h8FD1934127C79BCE, 64'h0D95DE399746DF03, 64'h4903ADFF749C51CE
    };
    localparam [5:0] T_MSG = 6'd48, T_OUT = 6'd63;
`ifdef MUT_ROT
    localparam [5:0] R70 = 6'd9;
`else
    localparam [5:0] R70 = 6'd8;
`endif

    reg [2:0]   fsm;
    reg [511:0] sa;          // the state after subkey 2*pair; after FF the chaining value
    reg [511:0] m;           // the block's input, for the feed-forward
    reg [511:0] kw;          // k_0 .. k_7
    reg [127:0] tw;          // t_0 in [63:0], t_1 in [127:64]
    reg [3:0]   pair;        // the clock's pair of subkeys: 2*pair+1, 2*pair+2
    reg [63:0]  pos;
    reg         first, last_q, out_ph;

    function [63:0] rotl;
        input [63:0] x;
        input [5:0] r;
        rotl = (x << r) | (x >> (7'd64 - {1'b0, r}));
    endfunction

    // One round with the constants a..d of MIX 0..3, then the permutation pi = (2,1,4,7,6,5,
    // 0,3); `wrong` exchanges words 0 and 6 of it (a wiring fault of one instance).
    function [511:0] round512;
        input [511:0] x;
        input [5:0] a, b, c, d;
        input wrong;
        reg [63:0] f0, f1, f2, f3, f4, f5, f6, f7;
        begin
            f0 = x[63:0] + x[127:64];     f1 = rotl(x[127:64], a) ^ f0;
            f2 = x[191:128] + x[255:192]; f3 = rotl(x[255:192], b) ^ f2;
            f4 = x[319:256] + x[383:320]; f5 = rotl(x[383:320], c) ^ f4;
            f6 = x[447:384] + x[511:448]; f7 = rotl(x[511:448], d) ^ f6;
            if (wrong)
                round512 = {f3, f2, f5, f6, f7, f4, f1, f0};
            else
                round512 = {f3, f0, f5, f6, f7, f4, f1, f2};
        end
    endfunction

    // Word i of the extended key k_0..k_8 (k_8 = C240 xor k_0 xor ... xor k_7).
    function [63:0] kword;
        input [511:0] k;
        input [3:0] i;
        if (i == 4'd8)
            kword = C240 ^ k[63:0] ^ k[127:64] ^ k[191:128] ^ k[255:192] ^ k[319:256]
                    ^ k[383:320] ^ k[447:384] ^ k[511:448];
        else
            kword = k[64 * i +: 64];
    endfunction

    // Word j of t_0, t_1, t_2 = t_0 xor t_1.
    function [63:0] tword;
        input [127:0] t;
        input [1:0] j;
        case (j)
            2'd0: tword = t[63:0];
            2'd1: tword = t[127:64];
            default: tword = t[63:0] ^ t[127:64];
        endcase
    endfunction

    // x plus subkey s (Skein 1.3, section 3.3.2).
    function [511:0] inject;
        input [511:0] x;
        input [511:0] k;
        input [127:0] t;
        input [4:0] s;
        integer i;
        reg [63:0] w;
        begin
            for (i = 0; i < 8; i = i + 1) begin
                w = kword(k, (s + i) % 9);
                if (i == 5) w = w + tword(t, s % 3);
                if (i == 6) w = w + tword(t, (s + 1) % 3);
`ifdef MUT_SUBKEY
                if (i == 7) w = w + {59'd0, s ^ 5'd1};
`else
                if (i == 7) w = w + {59'd0, s};
`endif
                inject[64 * i +: 64] = x[64 * i +: 64] + w;
            end
        end
    endfunction

    // Rounds 8p .. 8p+7 and subkeys 2p+1, 2p+2, from the state after subkey 2p.
    function [511:0] rounds8;
        input [511:0] x;
        input [511:0] k;
        input [127:0] t;
        input [3:0] p;
        reg [511:0] y;
        begin
            y = round512(x, 6'd46, 6'd36, 6'd19, 6'd37, 1'b0);
            y = round512(y, 6'd33, 6'd27, 6'd14, 6'd42, 1'b0);
            y = round512(y, 6'd17, 6'd49, 6'd36, 6'd39, 1'b0);
            y = round512(y, 6'd44, 6'd9,  6'd54, 6'd56, 1'b0);
            y = inject(y, k, t, {p, 1'b1});
            y = round512(y, 6'd39, 6'd30, 6'd34, 6'd24, 1'b0);
            y = round512(y, 6'd13, 6'd50, 6'd10, 6'd17, 1'b0);
            y = round512(y, 6'd25, 6'd29, 6'd39, 6'd43, 1'b0);
`ifdef MUT_PERM
            y = round512(y, R70,   6'd35, 6'd56, 6'd22, 1'b1);
`else
            y = round512(y, R70,   6'd35, 6'd56, 6'd22, 1'b0);
`endif
            rounds8 = inject(y, k, t, {p, 1'b0} + 5'd2);
        end
    endfunction

    wire [63:0]  pos_n = pos + {57'd0, blk_bytes};
`ifdef MUT_FIRST
    wire [63:0]  t1_msg = {blk_last, 1'b0, T_MSG, 56'd0};
`else
    wire [63:0]  t1_msg = {blk_last, first, T_MSG, 56'd0};
`endif
`ifdef MUT_FF
    wire [511:0] cv = {sa[511:64] ^ m[511:64], sa[63:0]};
`else
    wire [511:0] cv = sa ^ m;
`endif

    always @(posedge clk) begin
        if (rst) begin
            fsm <= IDLE; sa <= 0; m <= 0; kw <= 0; tw <= 0; pair <= 0; pos <= 0;
            first <= 0; last_q <= 0; out_ph <= 0;
            blk_take <= 0; digest <= 0; digest_valid <= 0; done <= 0;
        end else begin
            blk_take <= 0;
            digest_valid <= 0;
            case (fsm)
                IDLE: if (start) begin
                    pos <= 0;
                    first <= 1;
                    out_ph <= 0;
                    fsm <= LOAD;
                end
                LOAD: begin
                    kw <= first ? IV : sa;
                    m <= blk_data;
                    tw <= {t1_msg, pos_n};
                    pos <= pos_n;
                    first <= 0;
                    last_q <= blk_last;
                    blk_take <= 1;
                    fsm <= INJ0;
                end
                OUTLOAD: begin
                    // Output UBI: counter 0 (all-zero block), position 8, First and Final.
                    kw <= sa;
                    m <= 512'd0;
                    tw <= {2'b11, T_OUT, 56'd0, 64'd8};
                    out_ph <= 1;
                    fsm <= INJ0;
                end
                INJ0: begin
                    sa <= inject(m, kw, tw, 5'd0);
                    pair <= 0;
                    fsm <= RUN;
                end
                RUN: begin
                    sa <= rounds8(sa, kw, tw, pair);
                    pair <= pair + 4'd1;
                    if (pair == 4'd8) fsm <= FF;
                end
                FF: begin
                    sa <= cv;
                    if (out_ph) begin
                        digest <= cv;
                        digest_valid <= 1;
                        fsm <= FIN;
                    end else if (last_q)
                        fsm <= OUTLOAD;
                    else
                        fsm <= LOAD;
                end
                default: done <= 1;
            endcase
        end
    end
endmodule
