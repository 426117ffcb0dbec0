-- An independent Skein-256-256 hash core in VHDL, for the GHDL test of the cocotb checker:
-- the design of crates/diff/tests/data/third_party/skein256_core.v (not produced by
-- crates/rtl) written again in VHDL. Four rounds per cycle, the state registered *before*
-- subkey injection (st), the injected state one cycle later (inj, which then shows the
-- chaining value), key and tweak registers that turn by one word per subkey (kr, tr), a
-- hard-coded IV (no Config UBI) and a serial digest port (dout, one 64-bit word per cycle).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity skein256_core is
    port (
        clk        : in  std_logic;
        rst        : in  std_logic;
        start      : in  std_logic;
        blk_data   : in  std_logic_vector(255 downto 0);  -- message block, word 0 in 63:0
        blk_bytes  : in  std_logic_vector(7 downto 0);    -- bytes of the block (1..32)
        blk_last   : in  std_logic;
        blk_take   : out std_logic;
        dout       : out std_logic_vector(63 downto 0);
        dout_valid : out std_logic;
        done       : out std_logic
    );
end entity;

architecture rtl of skein256_core is
    subtype w64 is unsigned(63 downto 0);
    subtype w256 is unsigned(255 downto 0);
    type fsm_t is (IDLE, LOAD, RUN, OUTLOAD, SER, FIN);

    constant IV : w256 := x"6A54E920FDE8DA69" & x"B33BC3896656840F"
                        & x"2FCA66479FA7D833" & x"FC9DA860D048B449";
    constant C240 : w64 := x"1BD11BDAA9FC1A22";
    constant T1_OUT : w64 := x"FF00000000000000";  -- first, final, type Out (63)
    constant EIGHT : w64 := to_unsigned(8, 64);

    signal fsm        : fsm_t;
    signal st         : w256;                   -- the state before subkey sc is added
    signal inj        : w256;                   -- the state after the last injection
    signal msg        : w256;                   -- the block input, for the feed-forward
    signal kr         : unsigned(319 downto 0); -- word i holds k_{(sc+i) mod 5}
    signal tr         : unsigned(191 downto 0); -- word i holds t_{(sc+i) mod 3}
    signal sc         : unsigned(4 downto 0);   -- subkey counter
    signal pos        : w64;                    -- bytes processed
    signal first      : std_logic;
    signal last_q     : std_logic;
    signal out_phase  : std_logic;
    signal ff_pending : std_logic;
    signal dig        : w256;
    signal nout       : unsigned(2 downto 0);
    signal running    : std_logic;
    signal subkey     : w256;
    signal added      : w256;
    signal cv         : w256;
    signal pos_n      : w64;
    signal t1_msg     : w64;

    function word(x : unsigned; i : natural) return w64 is
    begin
        return x(64 * i + 63 downto 64 * i);
    end function;

    -- One Threefish-256 round: MIX on words (0,1) and (2,3), then the permutation.
    function round1(x : w256; ra, rb : natural) return w256 is
        variable a0, a1, a2, a3 : w64;
    begin
        a0 := word(x, 0) + word(x, 1);
        a1 := rotate_left(word(x, 1), ra) xor a0;
        a2 := word(x, 2) + word(x, 3);
        a3 := rotate_left(word(x, 3), rb) xor a2;
        return a1 & a2 & a3 & a0;
    end function;

    -- Rounds 4s..4s+3: the rotation constants of rows 0-3 (s even) or 4-7 (s odd).
    function rounds4(x : w256; odd : std_logic) return w256 is
    begin
        if odd = '0' then
            return round1(round1(round1(round1(x, 14, 16), 52, 57), 23, 40), 5, 37);
        else
            return round1(round1(round1(round1(x, 25, 33), 46, 12), 58, 22), 32, 32);
        end if;
    end function;

    function parity(k : w256) return w64 is
    begin
        return C240 xor word(k, 0) xor word(k, 1) xor word(k, 2) xor word(k, 3);
    end function;
begin
    running <= '1' when fsm = RUN else '0';
    subkey <= (word(kr, 3) + resize(sc, 64)) & (word(kr, 2) + word(tr, 1))
              & (word(kr, 1) + word(tr, 0)) & word(kr, 0);
    added <= (word(st, 3) + word(subkey, 3)) & (word(st, 2) + word(subkey, 2))
             & (word(st, 1) + word(subkey, 1)) & (word(st, 0) + word(subkey, 0));
    cv <= added xor msg;
    pos_n <= pos + resize(unsigned(blk_bytes), 64);
    t1_msg <= blk_last & first & "110000" & to_unsigned(0, 56);

    process (clk)
    begin
        if rising_edge(clk) then
            if rst = '1' then
                fsm <= IDLE;
                st <= (others => '0');
                inj <= (others => '0');
                msg <= (others => '0');
                kr <= (others => '0');
                tr <= (others => '0');
                sc <= (others => '0');
                pos <= (others => '0');
                first <= '0';
                last_q <= '0';
                out_phase <= '0';
                ff_pending <= '0';
                dig <= (others => '0');
                nout <= (others => '0');
                blk_take <= '0';
                dout <= (others => '0');
                dout_valid <= '0';
                done <= '0';
            else
                blk_take <= '0';
                dout_valid <= '0';
                ff_pending <= '0';
                if ff_pending = '1' then
                    inj <= kr(255 downto 0);
                end if;
                case fsm is
                    when IDLE =>
                        if start = '1' then
                            kr <= parity(IV) & IV;
                            pos <= (others => '0');
                            first <= '1';
                            fsm <= LOAD;
                        end if;
                    when LOAD =>
                        st <= unsigned(blk_data);
                        msg <= unsigned(blk_data);
                        tr <= (pos_n xor t1_msg) & t1_msg & pos_n;
                        pos <= pos_n;
                        last_q <= blk_last;
                        blk_take <= '1';
                        sc <= (others => '0');
                        fsm <= RUN;
                    when RUN =>
                        inj <= added;
                        if sc /= 18 then
                            st <= rounds4(added, sc(0));
                            kr <= kr(63 downto 0) & kr(319 downto 64);
                            tr <= tr(63 downto 0) & tr(191 downto 64);
                            sc <= sc + 1;
                        else
                            kr <= parity(cv) & cv;
                            ff_pending <= '1';
                            first <= '0';
                            if out_phase = '1' then
                                dig <= cv;
                                nout <= (others => '0');
                                fsm <= SER;
                            elsif last_q = '1' then
                                fsm <= OUTLOAD;
                            else
                                fsm <= LOAD;
                            end if;
                        end if;
                    when OUTLOAD =>
                        st <= (others => '0');
                        msg <= (others => '0');
                        tr <= (EIGHT xor T1_OUT) & T1_OUT & EIGHT;
                        sc <= (others => '0');
                        out_phase <= '1';
                        fsm <= RUN;
                    when SER =>
                        dout <= std_logic_vector(dig(63 downto 0));
                        dig <= shift_right(dig, 64);
                        dout_valid <= '1';
                        nout <= nout + 1;
                        if nout = 3 then
                            fsm <= FIN;
                        end if;
                    when FIN =>
                        done <= '1';
                end case;
            end if;
        end if;
    end process;
end architecture;
