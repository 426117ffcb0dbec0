// A 64-bit adder between registers: the model's one-adder chain.
module add64 (
    input  wire        clk,
    input  wire [63:0] a,
    input  wire [63:0] b,
    output reg  [63:0] s
);
    reg [63:0] ra, rb;
    always @(posedge clk) begin
        ra <= a;
        rb <= b;
        s  <= ra + rb;
    end
endmodule
