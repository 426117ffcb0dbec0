// A subkey addition chained into a MIX addition: y0 = (x0 + k0) + (x1 + k1),
// y1 = ((x1 + k1) <<< 14) ^ y0. Yosys's alumacc merges (x0 + k0) + w into one three-operand
// adder ($macc: a row of full adders in LUTs, then one carry chain), so the netlist has 2 carry
// chains where the model counts 3 adders (2 on the path).
module subkey_mix64 (
    input  wire        clk,
    input  wire [63:0] x0,
    input  wire [63:0] x1,
    input  wire [63:0] k0,
    input  wire [63:0] k1,
    output reg  [63:0] y0,
    output reg  [63:0] y1
);
    reg  [63:0] r0, r1, rk0, rk1;
    wire [63:0] w1 = r1 + rk1;
    wire [63:0] s  = (r0 + rk0) + w1;
    always @(posedge clk) begin
        r0 <= x0;
        r1 <= x1;
        rk0 <= k0;
        rk1 <= k1;
        y0 <= s;
        y1 <= {w1[49:0], w1[63:50]} ^ s;
    end
endmodule
