// FST fixtures for the diff's own FST decoder: two-state and four-state values, a vector
// wider than 64 bits, a tri-state bus, and signals whose changes are identical (aliased).
module sub(input clk, input [7:0] d, output reg [7:0] q);
  always @(posedge clk) q <= d;
endmodule

module t;
  reg clk = 0;
  reg [7:0] count = 0;
  reg [99:0] wide = 100'h1;
  reg [63:0] word;
  reg flag;
  reg [3:0] nib = 4'bxz01;
  wire [7:0] bus = count[0] ? count : 8'bz;
  wire [7:0] q1, q2;
  reg [15:0] same_a = 0, same_b = 0;
  sub s1(.clk(clk), .d(count), .q(q1));
  sub s2(.clk(clk), .d(count), .q(q2));
  always #5 clk = ~clk;
  always @(posedge clk) begin
    count <= count + 1;
    wide <= {wide[98:0], wide[99] ^ wide[3]};
    word <= {count, count, ~count, count, 32'hdeadbeef} ^ {wide[63:0]};
    flag <= count[1];
    nib <= (count > 10) ? count[3:0] : {nib[2:0], nib[3]};
    same_a <= same_a + 3;
    same_b <= same_b + 3;
  end
  initial begin
    $dumpfile("mixed.fst");
    $dumpvars(0, t);
    #600 $finish;
  end
endmodule
