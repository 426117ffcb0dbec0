//! The input handshake of the generated core, as its test bench drives it: one input register
//! per stream (`in_ready[k]`: stream k's register is free), filled by the host and emptied when
//! the controller issues a block that came through the port.
//!
//! The feed rule (the test bench's, `skeinhw-rtl`'s `testbench.rs`): after each falling edge
//! the host offers one block, to the stream whose register has been free longest (streams not
//! yet started first, in stream order), lowest-numbered on a tie, among the streams with a
//! block left to send; the block is loaded at the next rising edge. A tree node's block is a
//! child result the core returned (`res_valid`): it is offered only once that result is back,
//! which is after the edge at which the child completed. Stream 0's first block is loaded
//! before cycle 1 (the test bench's prefix). A stream's register empties at the edge at which
//! the controller issues a Key, optional-argument or message block of that stream; Config and
//! Output blocks are the core's own. A block loaded and issued at the same edge leaves the
//! register free.
//!
//! [`Feed`] runs the rule online beside the simulator, so that every record carries its
//! `in_ready` bits and traces still stream.

use skeinhw_skein::Tweak;
use skeinhw_skein::constants::BlockType;

/// What the feed needs to know of one block of a stream, in issue order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeedBlock {
    /// The block comes from the host through the input port (Key, optional arguments,
    /// message); Config and Output blocks are the core's.
    pub host: bool,
    /// A tree node's block: its data is a child result the core returned, so the host can
    /// offer it only after that result is back.
    pub node: bool,
    /// Its result goes back to the host when it completes (the last block of a tree call
    /// that is not the root).
    pub returns: bool,
}

impl FeedBlock {
    /// The feed's view of a block with `tweak`; `before_output`: the stream's next block is
    /// an Output block (the root of a tree returns nothing).
    pub fn of(tweak: [u64; 2], before_output: bool) -> FeedBlock {
        let Some(t) = Tweak::from_words(tweak) else {
            return FeedBlock::default();
        };
        let host = !matches!(t.block_type, BlockType::Config | BlockType::Output);
        FeedBlock {
            host,
            node: host && t.tree_level >= 2,
            returns: host && t.tree_level >= 1 && t.last && !before_output,
        }
    }
}

/// One stream's input register and its place in the stream's blocks.
#[derive(Clone, Debug)]
struct StreamFeed {
    blocks: Vec<FeedBlock>,
    /// Host blocks only, in order: whether each is a node block.
    host_nodes: Vec<bool>,
    /// Next block of `blocks` the controller issues.
    issued: usize,
    /// Next block of `blocks` to complete.
    completed: usize,
    /// Host blocks loaded into the register so far.
    loaded: usize,
    /// Node blocks among them.
    nodes_loaded: u64,
    /// Results the core has returned to the host.
    returned: u64,
    /// The register holds a block.
    full: bool,
    /// `!full` after the previous edge.
    was_ready: bool,
    /// The cycle the register last became free (streams not started rank first).
    freed: i64,
}

impl StreamFeed {
    /// The host can offer this stream's next block now.
    fn offerable(&self) -> bool {
        !self.full
            && self
                .host_nodes
                .get(self.loaded)
                .is_some_and(|&node| !node || self.returned > self.nodes_loaded)
    }

    fn load(&mut self) {
        if self.host_nodes[self.loaded] {
            self.nodes_loaded += 1;
        }
        self.full = true;
        self.loaded += 1;
    }
}

/// The feed rule run online: tell it what the controller issued and completed in a cycle, then
/// call [`Feed::edge`] for that cycle's `in_ready` bits.
#[derive(Clone, Debug)]
pub struct Feed {
    streams: Vec<StreamFeed>,
    /// The stream offered a block after the last falling edge.
    next: Option<usize>,
    /// The stream whose host block the controller issues in this cycle.
    emptied: Option<usize>,
    ready: Vec<bool>,
}

impl Feed {
    /// The feed of `blocks[k]`, stream k's blocks in issue order (an empty list: a stream the
    /// run does not feed, whose bit stays 1), after the test bench's prefix (stream 0's first
    /// block loaded before cycle 1).
    pub fn new(blocks: Vec<Vec<FeedBlock>>) -> Feed {
        let streams: Vec<StreamFeed> = blocks
            .into_iter()
            .enumerate()
            .map(|(k, blocks)| StreamFeed {
                host_nodes: blocks.iter().filter(|b| b.host).map(|b| b.node).collect(),
                blocks,
                issued: 0,
                completed: 0,
                loaded: 0,
                nodes_loaded: 0,
                returned: 0,
                full: false,
                was_ready: true,
                freed: k as i64 - 1_000_000,
            })
            .collect();
        let n = streams.len();
        let mut feed = Feed {
            streams,
            next: None,
            emptied: None,
            ready: vec![true; n],
        };
        if let Some(p) = feed.pick() {
            feed.streams[p].load();
        }
        for s in &mut feed.streams {
            s.was_ready = !s.full;
        }
        feed.next = feed.pick();
        feed
    }

    /// Streams (bits of `in_ready`).
    pub fn width(&self) -> usize {
        self.streams.len()
    }

    /// Of the streams the host can offer a block to, the one free longest, lowest on a tie.
    fn pick(&self) -> Option<usize> {
        (0..self.streams.len())
            .filter(|&k| self.streams[k].offerable())
            .min_by_key(|&k| (self.streams[k].freed, k))
    }

    /// The controller issues stream `k`'s next block in this cycle.
    pub fn issue(&mut self, k: usize) {
        if let Some(s) = self.streams.get_mut(k) {
            if s.blocks.get(s.issued).is_some_and(|b| b.host) {
                self.emptied = Some(k);
            }
            s.issued += 1;
        }
    }

    /// Stream `k`'s block in flight completes in this cycle.
    pub fn complete(&mut self, k: usize) {
        if let Some(s) = self.streams.get_mut(k) {
            if s.blocks.get(s.completed).is_some_and(|b| b.returns) {
                s.returned += 1;
            }
            s.completed += 1;
        }
    }

    /// The rising edge of `cycle`, after [`Feed::issue`] and [`Feed::complete`] for it: the
    /// block offered after the last falling edge is loaded, a host block issued empties its
    /// register, and the host picks the block to offer after this edge's falling edge.
    /// Returns `in_ready` after the edge, bit k = stream k's register is free.
    pub fn edge(&mut self, cycle: u64) -> &[bool] {
        if let Some(p) = self.next.take() {
            self.streams[p].load();
        }
        if let Some(k) = self.emptied.take() {
            self.streams[k].full = false;
        }
        for (s, ready) in self.streams.iter_mut().zip(&mut self.ready) {
            *ready = !s.full;
            if !s.full && !s.was_ready && s.loaded > 0 {
                s.freed = cycle as i64;
            }
            s.was_ready = !s.full;
        }
        self.next = self.pick();
        &self.ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: FeedBlock = FeedBlock {
        host: true,
        node: false,
        returns: false,
    };
    const CORE: FeedBlock = FeedBlock {
        host: false,
        node: false,
        returns: false,
    };

    /// Runs `feed` over cycles 1..=n; `issues[c-1]` is the stream issued at edge c, if any.
    fn run(mut feed: Feed, issues: &[Option<usize>]) -> Vec<Vec<bool>> {
        let mut out = Vec::new();
        for (c, &i) in issues.iter().enumerate() {
            if let Some(k) = i {
                feed.issue(k);
            }
            out.push(feed.edge(c as u64 + 1).to_vec());
        }
        out
    }

    #[test]
    fn two_streams_by_hand() {
        // Stream 0: two message blocks then an Output block; stream 1: one message block.
        // Issues (a hand-made timing): s0 at 1, s1 at 2, s0 at 4, s0's Output at 6.
        // By the rule: before cycle 1 s0's block 0 is loaded and s1 (not started) is offered.
        // Edge 1: s1 loaded, s0 issued -> s0 free, s1 full: [1, 0]; offer s0 (only one left).
        // Edge 2: s0 loaded, s1 issued -> [0, 1]; nothing left to offer.
        // Edge 3: [0, 1]. Edge 4: s0 issued -> [1, 1]. Edges 5, 6 (Output: core's): [1, 1].
        let feed = Feed::new(vec![vec![HOST, HOST, CORE], vec![HOST]]);
        let issues = [Some(0), Some(1), None, Some(0), None, Some(0)];
        let t = true;
        let f = false;
        assert_eq!(
            run(feed, &issues),
            vec![
                vec![t, f],
                vec![f, t],
                vec![f, t],
                vec![t, t],
                vec![t, t],
                vec![t, t]
            ]
        );
    }

    #[test]
    fn free_longest_goes_first() {
        // Three streams, two host blocks each; all three have started by edge 2.
        // Prefix: s0 loaded, offer s1. Edge 1: s1 loaded, s0 issued -> s0 freed at 1: [1,0,1];
        // offer s2 (not started ranks before s0). Edge 2: s2 loaded, s1 issued -> s1 freed at
        // 2: [1,1,0]; offer s0 (freed 1 < 2). Edge 3: s0 loaded, s2 issued -> s2 freed at 3:
        // [0,1,1]; offer s1 (freed 2 < 3). Edge 4: s1 loaded: [0,0,1]; offer s2.
        // Edge 5: s2 loaded: [0,0,0]; nothing left.
        let feed = Feed::new(vec![vec![HOST, HOST]; 3]);
        let issues = [Some(0), Some(1), Some(2), None, None];
        let (t, f) = (true, false);
        assert_eq!(
            run(feed, &issues),
            vec![
                vec![t, f, t],
                vec![t, t, f],
                vec![f, t, t],
                vec![f, f, t],
                vec![f, f, f]
            ]
        );
    }

    #[test]
    fn a_node_waits_for_its_child_result() {
        // Stream 0: a leaf (returns its result) then a node block carrying it.
        // Prefix: leaf loaded; the node is not offered (no result back). Edge 1: leaf issued:
        // [1]. Edge 2: [1]. Edge 3: the leaf completes (result back), offer the node.
        // Edge 4: node loaded: [0]. Edge 5: node issued: [1].
        let leaf = FeedBlock {
            host: true,
            node: false,
            returns: true,
        };
        let node = FeedBlock {
            host: true,
            node: true,
            returns: false,
        };
        let mut feed = Feed::new(vec![vec![leaf, node]]);
        let mut got = Vec::new();
        for c in 1..=5u64 {
            let issued = match c {
                1 | 5 => Some(0),
                _ => None,
            };
            if let Some(k) = issued {
                feed.issue(k);
            }
            if c == 3 {
                feed.complete(0);
            }
            got.push(feed.edge(c)[0]);
        }
        assert_eq!(got, vec![true, true, true, false, true]);
    }

    #[test]
    fn feed_block_of_a_tweak() {
        let t = |block_type, tree_level, last| {
            Tweak {
                position: 64,
                tree_level,
                bit_pad: false,
                block_type,
                first: true,
                last,
            }
            .words()
        };
        assert!(!FeedBlock::of(t(BlockType::Config, 0, true), false).host);
        assert!(!FeedBlock::of(t(BlockType::Output, 0, true), false).host);
        assert!(FeedBlock::of(t(BlockType::Nonce, 0, true), false).host);
        let leaf = FeedBlock::of(t(BlockType::Message, 1, true), false);
        assert!(leaf.host && leaf.returns && !leaf.node);
        let root = FeedBlock::of(t(BlockType::Message, 2, true), true);
        assert!(root.host && root.node && !root.returns);
    }
}
