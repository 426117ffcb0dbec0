// Test bench of skein256_core.v: feeds the blocks of `HEX (one 256-bit block per line, word 3
// first) to the core, `NB blocks, the last of `LASTBYTES bytes; writes `VCD.
`timescale 1ns/1ps
module tb;
    reg clk = 0, rst = 1, start = 0;
    reg [255:0] blocks [0:`NB-1];
    reg [255:0] konst = 256'd0;   // a register that never changes (for wrong-map tests)
    integer bi = 0;
    wire blk_take, dout_valid, done;
    wire [63:0] dout;
    wire last = (bi == `NB - 1);
    skein256_core dut (
        .clk(clk), .rst(rst), .start(start),
        .blk_data(blocks[bi]), .blk_bytes(last ? `LASTBYTES : 8'd32), .blk_last(last),
        .blk_take(blk_take), .dout(dout), .dout_valid(dout_valid), .done(done)
    );
    always #5 clk = ~clk;
    always @(posedge clk) if (blk_take) bi <= bi + 1;
    always @(posedge clk) if (done) $finish;
    initial begin
        $dumpfile(`VCD);
        $dumpvars(0, tb);
        $readmemh(`HEX, blocks);
        @(posedge clk); @(posedge clk);
        rst <= 0;
        start <= 1;
        @(posedge clk);
        start <= 0;
        #100000 $display("timeout");
        $finish;
    end
endmodule
