-- Test bench of skein256_core.vhd: feeds the two blocks of the official vector "Skein-256:
-- 256-bit hash, msgLen = 512 bits, data = 'incrementing'" (bytes FF, FE, ..., C0) to the core.
-- The clock runs free; the cocotb test ends the simulation.
library ieee;
use ieee.std_logic_1164.all;

entity tb is
end entity;

architecture sim of tb is
    type blocks_t is array (0 to 1) of std_logic_vector(255 downto 0);
    -- Word 3 first, each word's bytes little-endian (as the Verilog bench's hex file).
    constant BLOCKS : blocks_t := (
        x"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
        x"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    );
    signal clk        : std_logic := '0';
    signal rst        : std_logic := '1';
    signal start      : std_logic := '0';
    signal bi         : integer range 0 to 1 := 0;
    signal blk_data   : std_logic_vector(255 downto 0);
    signal blk_last   : std_logic;
    signal blk_take   : std_logic;
    signal dout       : std_logic_vector(63 downto 0);
    signal dout_valid : std_logic;
    signal done       : std_logic;
begin
    clk <= not clk after 5 ns;
    blk_data <= BLOCKS(bi);
    blk_last <= '1' when bi = 1 else '0';

    dut : entity work.skein256_core
        port map (
            clk => clk, rst => rst, start => start,
            blk_data => blk_data, blk_bytes => x"20", blk_last => blk_last,
            blk_take => blk_take, dout => dout, dout_valid => dout_valid, done => done
        );

    process (clk)
    begin
        if rising_edge(clk) then
            if blk_take = '1' and bi < 1 then
                bi <= bi + 1;
            end if;
        end if;
    end process;

    process
    begin
        wait until rising_edge(clk);
        wait until rising_edge(clk);
        rst <= '0';
        start <= '1';
        wait until rising_edge(clk);
        start <= '0';
        wait;
    end process;
end architecture;
