-- FST fixture from GHDL: a counter, a wide vector and std_logic states.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
entity cnt is end;
architecture sim of cnt is
  signal clk : std_logic := '0';
  signal count : unsigned(7 downto 0) := (others => '0');
  signal wide : std_logic_vector(79 downto 0) := (0 => '1', others => '0');
  signal st : std_logic := 'U';
  signal bus8 : std_logic_vector(7 downto 0) := (others => 'Z');
begin
  clk <= not clk after 5 ns when now < 400 ns;
  process (clk) begin
    if rising_edge(clk) then
      count <= count + 1;
      wide <= wide(78 downto 0) & (wide(79) xor wide(2));
      if count > 3 then st <= count(0); end if;
      if count(1) = '1' then bus8 <= std_logic_vector(count); else bus8 <= (others => 'Z'); end if;
    end if;
  end process;
end;
