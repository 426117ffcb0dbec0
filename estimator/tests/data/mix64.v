// One Threefish MIX between registers: y0 = x0 + x1, y1 = (x1 <<< 14) ^ y0.
// The rotation is wiring; the XOR follows the adder (one LUT level after the carry chain).
module mix64 (
    input  wire        clk,
    input  wire [63:0] x0,
    input  wire [63:0] x1,
    output reg  [63:0] y0,
    output reg  [63:0] y1
);
    reg  [63:0] r0, r1;
    wire [63:0] s = r0 + r1;
    always @(posedge clk) begin
        r0 <= x0;
        r1 <= x1;
        y0 <= s;
        y1 <= {r1[49:0], r1[63:50]} ^ s;
    end
endmodule
