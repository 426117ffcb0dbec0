module t; reg clk = 0; reg [7:0] cnt = 0; reg [127:0] wide = 0;
always #5 clk = ~clk;
always @(posedge clk) begin cnt <= cnt + 1; wide <= {wide[126:0], 1'b1}; end
initial begin $dumpfile("counter.vcd"); $dumpvars(0, t); #200 $finish; end
endmodule
