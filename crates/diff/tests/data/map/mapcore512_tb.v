// Test bench of mapcore512: reads msg.hex (word 0: the message length in bytes, words 1..8:
// the block's words), hashes it, prints the digest words and writes core.vcd.
`timescale 1ns / 1ps
module mapcore512_tb;
    reg clk = 1'b0, rst = 1'b1, start = 1'b0;
    reg [511:0] msg;
    reg [63:0] msg_bytes;
    reg [63:0] mem[0:8];
    wire [63:0] dout;
    wire dout_valid, done;
    integer i;

    mapcore512 core (
        .clk(clk), .rst(rst), .start(start), .msg(msg), .msg_bytes(msg_bytes),
        .dout(dout), .dout_valid(dout_valid), .done(done)
    );

    always #5 clk = ~clk;
    always @(posedge clk) if (dout_valid) $display("%016h", dout);

    initial begin
        $readmemh("msg.hex", mem);
        msg_bytes = mem[0];
        for (i = 0; i < 8; i = i + 1) msg[64 * i +: 64] = mem[i + 1];
        $dumpfile("core.vcd");
        $dumpvars(0, mapcore512_tb);
        repeat (3) @(posedge clk);
        rst <= 1'b0;
        start <= 1'b1;
        @(posedge clk);
        start <= 1'b0;
        wait (done);
        @(posedge clk);
        $finish;
    end

    initial begin
        #100000;
        $display("timeout");
        $finish;
    end
endmodule
