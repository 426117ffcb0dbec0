// One Threefish-256 round datapath, iterated: a 4-word state register loaded from the input
// (2:1 select), a subkey added to every word when `inject` is high (2:1 select), two MIXes with
// the round-0 rotation constants (14, 16) and the word permutation (0 3 2 1) as wiring.
module tf256_round (
    input  wire         clk,
    input  wire         load,
    input  wire         inject,
    input  wire [255:0] block,
    input  wire [255:0] subkey,
    output wire [255:0] state
);
    reg  [255:0] v;
    reg  [255:0] k;
    wire [63:0] v0 = v[63:0],    v1 = v[127:64],  v2 = v[191:128], v3 = v[255:192];
    wire [63:0] k0 = k[63:0],    k1 = k[127:64],  k2 = k[191:128], k3 = k[255:192];
    wire [63:0] a0 = inject ? v0 + k0 : v0;
    wire [63:0] a1 = inject ? v1 + k1 : v1;
    wire [63:0] a2 = inject ? v2 + k2 : v2;
    wire [63:0] a3 = inject ? v3 + k3 : v3;
    wire [63:0] m0 = a0 + a1;
    wire [63:0] m1 = {a1[49:0], a1[63:50]} ^ m0;
    wire [63:0] m2 = a2 + a3;
    wire [63:0] m3 = {a3[47:0], a3[63:48]} ^ m2;
    assign state = v;
    always @(posedge clk) begin
        k <= subkey;
        v <= load ? block : {m1, m2, m3, m0};
    end
endmodule
