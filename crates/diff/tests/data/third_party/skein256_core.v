// An independent Skein-256-256 hash core, written for skeinhw-diff's tests in a style unlike
// the generated Verilog (not produced by crates/rtl): four rounds per cycle, the state
// registered *before* subkey injection (`st`), the injected state one cycle later (`inj`,
// which then shows the chaining value), key and tweak registers that turn by one word per
// subkey (`kr`, `tr`), a hard-coded IV (no Config UBI), and a serial digest port (`dout`, one
// 64-bit word per cycle). One message, fed block by block by the test bench.
module skein256_core (
    input  wire         clk,
    input  wire         rst,
    input  wire         start,
    input  wire [255:0] blk_data,   // message block, word 0 in [63:0]
    input  wire [7:0]   blk_bytes,  // bytes of the block (1..32)
    input  wire         blk_last,
    output reg          blk_take,
    output reg  [63:0]  dout,
    output reg          dout_valid,
    output reg          done
);
    localparam [2:0] IDLE = 3'd0, LOAD = 3'd1, RUN = 3'd2, OUTLOAD = 3'd3, SER = 3'd4, FIN = 3'd5;
    localparam [255:0] IV = {64'h6A54E920FDE8DA69, 64'hB33BC3896656840F,
                             64'h2FCA66479FA7D833, 64'hFC9DA860D048B449};
    localparam [63:0] C240 = 64'h1BD11BDAA9FC1A22;

    reg [2:0]   fsm;
    reg [255:0] st;          // the state before subkey sc is added
    reg [255:0] inj;         // the state after the last injection; then the chaining value
    reg [255:0] msg;         // the block input, for the feed-forward
    reg [319:0] kr;          // key ring: word i holds k_{(sc+i) mod 5}
    reg [191:0] tr;          // tweak ring: word i holds t_{(sc+i) mod 3}
    reg [4:0]   sc;          // subkey counter
    reg [63:0]  pos;         // bytes processed
    reg         first, last_q, out_phase, ff_pending;
    reg [255:0] dig;
    reg [2:0]   nout;
    wire        running = (fsm == RUN);

    function [63:0] rotl;
        input [63:0] x;
        input [5:0] r;
        rotl = (x << r) | (x >> (7'd64 - r));
    endfunction

    // One Threefish-256 round: MIX on words (0,1) and (2,3), then the permutation.
    function [255:0] round1;
        input [255:0] x;
        input [5:0] ra;
        input [5:0] rb;
        reg [63:0] a0, a1, a2, a3;
        begin
            a0 = x[63:0] + x[127:64];
            a1 = rotl(x[127:64], ra) ^ a0;
            a2 = x[191:128] + x[255:192];
            a3 = rotl(x[255:192], rb) ^ a2;
            round1 = {a1, a2, a3, a0};
        end
    endfunction

    // Rounds 4s..4s+3: the rotation constants of rows 0-3 (s even) or 4-7 (s odd).
    function [255:0] rounds4;
        input [255:0] x;
        input odd;
        begin
            if (!odd)
                rounds4 = round1(round1(round1(round1(x, 14, 16), 52, 57), 23, 40), 5, 37);
            else
                rounds4 = round1(round1(round1(round1(x, 25, 33), 46, 12), 58, 22), 32, 32);
        end
    endfunction

    function [63:0] parity;
        input [255:0] k;
        parity = C240 ^ k[63:0] ^ k[127:64] ^ k[191:128] ^ k[255:192];
    endfunction

    wire [255:0] subkey = {kr[255:192] + {59'd0, sc},
                           kr[191:128] + tr[127:64],
                           kr[127:64] + tr[63:0],
                           kr[63:0]};
    wire [255:0] added = {st[255:192] + subkey[255:192], st[191:128] + subkey[191:128],
                          st[127:64] + subkey[127:64], st[63:0] + subkey[63:0]};
    wire [255:0] cv = {added[255:192] ^ msg[255:192], added[191:128] ^ msg[191:128],
                       added[127:64] ^ msg[127:64], added[63:0] ^ msg[63:0]};
    wire [63:0]  pos_n = pos + {56'd0, blk_bytes};
    wire [63:0]  t1_msg = {blk_last, first, 6'd48, 56'd0};
    wire [63:0]  t1_out = {1'b1, 1'b1, 6'd63, 56'd0};
    wire [255:0] ctr_blk = 256'd0;

    always @(posedge clk) begin
        if (rst) begin
            fsm <= IDLE; st <= 0; inj <= 0; msg <= 0; kr <= 0; tr <= 0; sc <= 0; pos <= 0;
            first <= 0; last_q <= 0; out_phase <= 0; ff_pending <= 0; dig <= 0; nout <= 0;
            blk_take <= 0; dout <= 0; dout_valid <= 0; done <= 0;
        end else begin
            blk_take <= 0;
            dout_valid <= 0;
            ff_pending <= 0;
            if (ff_pending) inj <= kr[255:0];
            case (fsm)
                IDLE: if (start) begin
                    kr <= {parity(IV), IV};
                    pos <= 0;
                    first <= 1;
                    fsm <= LOAD;
                end
                LOAD: begin
                    st <= blk_data;
                    msg <= blk_data;
                    tr <= {pos_n ^ t1_msg, t1_msg, pos_n};
                    pos <= pos_n;
                    last_q <= blk_last;
                    blk_take <= 1;
                    sc <= 0;
                    fsm <= RUN;
                end
                RUN: begin
                    inj <= added;
                    if (sc != 5'd18) begin
                        st <= rounds4(added, sc[0]);
                        kr <= {kr[63:0], kr[319:64]};
                        tr <= {tr[63:0], tr[191:64]};
                        sc <= sc + 5'd1;
                    end else begin
                        kr <= {parity(cv), cv};
                        ff_pending <= 1;
                        first <= 0;
                        if (out_phase) begin
                            dig <= cv;
                            nout <= 0;
                            fsm <= SER;
                        end else if (last_q)
                            fsm <= OUTLOAD;
                        else
                            fsm <= LOAD;
                    end
                end
                OUTLOAD: begin
                    st <= ctr_blk;
                    msg <= ctr_blk;
                    tr <= {64'd8 ^ t1_out, t1_out, 64'd8};
                    sc <= 0;
                    out_phase <= 1;
                    fsm <= RUN;
                end
                SER: begin
                    dout <= dig[63:0];
                    dig <= dig >> 64;
                    dout_valid <= 1;
                    nout <= nout + 3'd1;
                    if (nout == 3'd3) fsm <= FIN;
                end
                default: done <= 1;
            endcase
        end
    end
endmodule
