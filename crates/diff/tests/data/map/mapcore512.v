// An independent Skein-512-512 core for the `skeinhw map` tests, written by hand and laid out
// unlike the generated Verilog:
// - one 512-bit vector `x` holds the state *before* each subkey injection (the injected state
//   exists only on a net), four rounds per clock;
// - the key and the tweak sit in rings `kr` and `tr` that rotate by one word per subkey, so
//   subkey s reads ring words 0..7 (key word (s+i) mod 9) and tweak words 0, 1;
// - the Config block is not computed: its chaining value (the Skein-512-512 IV) is a constant;
// - the digest leaves one 64-bit word per clock on `dout` while `dout_valid` is 1.
// One message block of 1 to 64 bytes (`msg`, word 0 in bits 63:0).
module mapcore512 (
    input clk,
    input rst,
    input start,
    input [511:0] msg,
    input [63:0] msg_bytes,
    output reg [63:0] dout,
    output reg dout_valid,
    output reg done
);
    localparam [511:0] IV = {
        64'hAE18A40B660FCC33, 64'h991112C71A75B523, 64'hEABE394CA9D5C3F4, 64'h5DB62599DF6CA7B0,
        64'h9A255629FF352CB1, 64'h8FD1934127C79BCE, 64'h0D95DE399746DF03, 64'h4903ADFF749C51CE
    };
    localparam [63:0] C240 = 64'h1BD11BDAA9FC1A22;
    localparam [1:0] IDLE = 2'd0, MSG = 2'd1, OUT = 2'd2, SEND = 2'd3;

    reg [511:0] x;      // state before the injection of subkey s
    reg [511:0] plain;  // the block's input, for the feed-forward
    reg [575:0] kr;     // key ring
    reg [191:0] tr;     // tweak ring
    reg [4:0] s;
    reg [1:0] mode;
    reg [3:0] n;
    reg [511:0] digest;

    function [63:0] rotl(input [63:0] v, input [5:0] r);
        rotl = (v << r) | (v >> (7'd64 - r));
    endfunction

    // The four rotation constants of round d mod 8, j = 0 in the low bits.
    function [23:0] rot(input [2:0] d);
        case (d)
            3'd0: rot = {6'd37, 6'd19, 6'd36, 6'd46};
            3'd1: rot = {6'd42, 6'd14, 6'd27, 6'd33};
            3'd2: rot = {6'd39, 6'd36, 6'd49, 6'd17};
            3'd3: rot = {6'd56, 6'd54, 6'd9, 6'd44};
            3'd4: rot = {6'd24, 6'd34, 6'd30, 6'd39};
            3'd5: rot = {6'd17, 6'd10, 6'd50, 6'd13};
            3'd6: rot = {6'd43, 6'd39, 6'd29, 6'd25};
            default: rot = {6'd22, 6'd56, 6'd35, 6'd8};
        endcase
    endfunction

    // Four MIXes, then the word permutation (new word i = MIX output pi(i), pi = 2,1,4,7,6,5,0,3).
    function [511:0] round512(input [511:0] v, input [2:0] d);
        reg [23:0] r;
        reg [63:0] a0, b0, a1, b1, a2, b2, a3, b3;
        begin
            r = rot(d);
            a0 = v[63:0] + v[127:64];
            b0 = rotl(v[127:64], r[5:0]) ^ a0;
            a1 = v[191:128] + v[255:192];
            b1 = rotl(v[255:192], r[11:6]) ^ a1;
            a2 = v[319:256] + v[383:320];
            b2 = rotl(v[383:320], r[17:12]) ^ a2;
            a3 = v[447:384] + v[511:448];
            b3 = rotl(v[511:448], r[23:18]) ^ a3;
            round512 = {b1, a0, b2, a3, b3, a2, b0, a1};
        end
    endfunction

    // x plus subkey s, word by word; the rings already hold the words of subkey s.
    function [511:0] inject(input [511:0] v, input [575:0] k, input [191:0] t, input [4:0] si);
        begin
            inject[63:0] = v[63:0] + k[63:0];
            inject[127:64] = v[127:64] + k[127:64];
            inject[191:128] = v[191:128] + k[191:128];
            inject[255:192] = v[255:192] + k[255:192];
            inject[319:256] = v[319:256] + k[319:256];
            inject[383:320] = v[383:320] + k[383:320] + t[63:0];
            inject[447:384] = v[447:384] + k[447:384] + t[127:64];
            inject[511:448] = v[511:448] + k[511:448] + {59'd0, si};
        end
    endfunction

    function [575:0] key_ring(input [511:0] k);
        key_ring = {C240 ^ k[63:0] ^ k[127:64] ^ k[191:128] ^ k[255:192] ^ k[319:256]
                    ^ k[383:320] ^ k[447:384] ^ k[511:448], k};
    endfunction

    function [191:0] tweak_ring(input [63:0] t0, input [63:0] t1);
        tweak_ring = {t0 ^ t1, t1, t0};
    endfunction

    wire [511:0] injected = inject(x, kr, tr, s);
    wire [2:0] d0 = {s[0], 2'b00};
    wire [511:0] four = round512(round512(round512(round512(injected, d0), d0 + 3'd1),
                                          d0 + 3'd2), d0 + 3'd3);
    wire [511:0] chain = injected ^ plain;  // at s = 18: the feed-forward

    always @(posedge clk) begin
        if (rst) begin
            mode <= IDLE;
            dout_valid <= 1'b0;
            done <= 1'b0;
            s <= 5'd0;
        end else begin
            case (mode)
                IDLE: if (start) begin
                    x <= msg;
                    plain <= msg;
                    kr <= key_ring(IV);
                    // Message block: position = bytes, type 48, First and Final.
                    tr <= tweak_ring(msg_bytes, {2'b11, 6'd48, 56'd0});
                    s <= 5'd0;
                    mode <= MSG;
                end
                MSG, OUT: if (s == 5'd18) begin
                    if (mode == MSG) begin
                        // Output block: counter 0, position 8, type 63, First and Final.
                        x <= 512'd0;
                        plain <= 512'd0;
                        kr <= key_ring(chain);
                        tr <= tweak_ring(64'd8, {2'b11, 6'd63, 56'd0});
                        s <= 5'd0;
                        mode <= OUT;
                    end else begin
                        digest <= chain;
                        n <= 4'd0;
                        mode <= SEND;
                    end
                end else begin
                    x <= four;
                    kr <= {kr[63:0], kr[575:64]};
                    tr <= {tr[63:0], tr[191:64]};
                    s <= s + 5'd1;
                end
                default: begin
                    if (n == 4'd8) begin
                        dout_valid <= 1'b0;
                        done <= 1'b1;
                        mode <= IDLE;
                    end else begin
                        dout <= digest[64 * n +: 64];
                        dout_valid <= 1'b1;
                        n <= n + 4'd1;
                    end
                end
            endcase
        end
    end
endmodule
