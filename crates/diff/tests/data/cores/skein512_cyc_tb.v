// Test bench of skein512_cyc.v. Run-time arguments (one compiled bench serves every message):
//   +blocks=FILE  the message blocks, one 512-bit block per line in hex, byte 63 first (so
//                 that byte 0 lands in bits 7:0); one all-zero line for the empty message
//   +nb=N         the number of blocks (at least 1)
//   +last=B       the bytes of the last block (0 for the empty message, else 1..64)
//   +vcd=FILE     the waveform to write
// Prints "digest <128 hex digits>" (the digest's bytes in order) and finishes on the falling
// edge after the digest, so that the waveform ends with the golden run's last cycle (cycle
// alignment takes a rising edge after it for a longer run); prints "timeout" if no digest came.
`timescale 1ns/1ps
module tb;
    reg clk = 0, rst = 1, start = 0;
    reg [511:0] blocks [0:255];
    reg [8*1024-1:0] blocks_file, vcd_file;
    integer nb, last_bytes, bi = 0;
    wire blk_take, hash_valid, done;
    wire [511:0] hash;
    wire last = (bi == nb - 1);
    wire [6:0] bytes = last ? last_bytes[6:0] : 7'd64;
    skein512_cyc dut (
        .clk(clk), .rst(rst), .start(start),
        .blk_data(blocks[bi]), .blk_bytes(bytes), .blk_last(last),
        .blk_take(blk_take), .hash(hash), .hash_valid(hash_valid), .done(done)
    );
    always #5 clk = ~clk;
    always @(posedge clk) if (blk_take) bi <= bi + 1;
    // The port is big-endian: the digest's byte 0 is in bits 511:504.
    always @(negedge clk) if (hash_valid) begin
        $display("digest %0128x", hash);
        $finish;
    end
    initial begin
        if (!$value$plusargs("blocks=%s", blocks_file) || !$value$plusargs("nb=%d", nb)
            || !$value$plusargs("last=%d", last_bytes) || !$value$plusargs("vcd=%s", vcd_file))
        begin
            $display("usage: +blocks=FILE +nb=N +last=B +vcd=FILE");
            $finish;
        end
        $readmemh(blocks_file, blocks);
        $dumpfile(vcd_file);
        $dumpvars(0, tb);
        @(posedge clk); @(posedge clk);
        rst <= 0;
        start <= 1;
        @(posedge clk);
        start <= 0;
        #2000000 $display("timeout");
        $finish;
    end
endmodule
