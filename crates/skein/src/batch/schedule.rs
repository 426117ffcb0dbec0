//! The lane scheduler: tasks into lanes, runs of blocks through a backend.

use alloc::vec::Vec;
use zeroize::Zeroize;

use super::task::{Stretch, Task, ZEROS};
use super::{Backend, Runner};
use crate::lanes::Run;
use crate::threefish::words_to_bytes;

/// Runs every task to completion with the backend, on this thread or over the rayon pool.
pub(crate) fn run_tasks<const N: usize>(
    backend: Backend,
    tasks: &mut [Task<'_, N>],
    runner: Runner,
) {
    match runner {
        Runner::Here => run_here(backend, tasks),
        #[cfg(feature = "parallel")]
        Runner::Pool => {
            use rayon::prelude::*;
            let threads = rayon::current_num_threads();
            if threads <= 1 || tasks.len() <= backend.lanes() {
                return run_here(backend, tasks);
            }
            // A few chunks per thread, so that a thread that finishes early steals more; each
            // chunk fills its lanes on its own.
            let chunk = tasks.len().div_ceil(4 * threads).max(backend.lanes());
            tasks
                .par_chunks_mut(chunk)
                .for_each(|c| run_here(backend, c));
        }
    }
}

fn run_here<const N: usize>(backend: Backend, tasks: &mut [Task<'_, N>]) {
    assert!(backend.is_available(), "backend {backend} is not available");
    match backend {
        Backend::Scalar => schedule::<N, 1>(tasks, crate::lanes::run_scalar::<N>),
        Backend::Portable8 => schedule::<N, 8>(tasks, crate::lanes::run_portable8::<N>),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => schedule::<N, 4>(tasks, crate::lanes::x86::run_avx2::<N>),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => schedule::<N, 8>(tasks, crate::lanes::x86::run_avx512::<N>),
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Avx2 | Backend::Avx512 => unreachable!("never available off x86-64"),
    }
}

/// The lane scheduler: each of the `L` lanes holds one task; a finished task's lane takes the
/// next task, longest tasks first. Every step is one [`crate::lanes::Run`] of all lanes:
///
/// - when every busy lane is in a stretch of whole blocks ([`Task::run`]: inside a UBI
///   message, up to and including a whole Final block, or the first output block), the run
///   covers as many blocks as the shortest stretch, with the chaining values in registers
///   throughout; a long message costs one gather and scatter of its chaining value per run, not
///   per block;
/// - otherwise (a partial or empty last block, a Position about to carry into t1, an output
///   block after the first) every busy lane does its next block ([`Task::job`]), one block.
///
/// Idle lanes (fewer tasks left than lanes) compute on another lane's data and their result is
/// dropped, which is cheaper than a narrower cipher.
fn schedule<const N: usize, const L: usize>(tasks: &mut [Task<'_, N>], run: Run<N, L>) {
    let nb = N * 8;
    let mut order: Vec<(usize, usize)> = tasks.iter().map(Task::jobs).zip(0..).collect();
    order.sort_unstable_by_key(|&(jobs, _)| core::cmp::Reverse(jobs));
    let mut queue = order.into_iter().map(|(_, i)| i);
    let mut slots: [Option<usize>; L] = [None; L];
    let mut chain = [[0u64; L]; N];
    let mut blocks = [[0u8; crate::ubi::MAX_BLOCK_BYTES]; L];
    loop {
        let mut busy = None;
        for (l, slot) in slots.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = queue.next();
            }
            if slot.is_some() && busy.is_none() {
                busy = Some(l);
            }
        }
        let Some(some_lane) = busy else { break };
        let mut tweak = [[0u64; L]; 2];
        let mut last = [0u64; L];
        let mut steps = usize::MAX;
        let mut stretches: [Option<Stretch<'_>>; L] = [None; L];
        for (l, slot) in slots.iter().enumerate() {
            if let Some(t) = *slot {
                stretches[l] = tasks[t].run();
                match &stretches[l] {
                    Some(s) => steps = steps.min(s.blocks),
                    None => steps = 0,
                }
            }
        }
        let mut data: [&[u8]; L] = [&ZEROS[..nb]; L];
        if steps > 0 {
            let fill = stretches[some_lane].as_ref().expect("a busy lane").data;
            for l in 0..L {
                let task = slots[l].map(|t| &tasks[t]);
                match (task, &stretches[l]) {
                    (Some(task), Some(s)) => {
                        data[l] = s.data;
                        tweak[0][l] = s.tweak[0];
                        tweak[1][l] = s.tweak[1];
                        if s.blocks == steps {
                            last[l] = s.last;
                        }
                        for (c, w) in chain.iter_mut().zip(&task.chain) {
                            c[l] = *w;
                        }
                    }
                    _ => {
                        data[l] = fill;
                        for c in chain.iter_mut() {
                            c[l] = 0;
                        }
                    }
                }
            }
        } else {
            steps = 1;
            for ((l, slot), bytes) in slots.iter().enumerate().zip(&mut blocks) {
                match *slot {
                    Some(t) => {
                        let task = &tasks[t];
                        let (tw, b) = task.job();
                        words_to_bytes(&b, &mut bytes[..nb]);
                        tweak[0][l] = tw[0];
                        tweak[1][l] = tw[1];
                        for (c, w) in chain.iter_mut().zip(&task.chain) {
                            c[l] = *w;
                        }
                    }
                    None => {
                        for c in chain.iter_mut() {
                            c[l] = 0;
                        }
                    }
                }
            }
            for (d, b) in data.iter_mut().zip(&blocks) {
                *d = &b[..nb];
            }
        }
        run(&mut chain, data, tweak, last, steps);
        for (l, slot) in slots.iter_mut().enumerate() {
            if let Some(t) = *slot {
                let result: [u64; N] = core::array::from_fn(|i| chain[i][l]);
                if tasks[t].advance(&result, steps) {
                    *slot = None;
                }
            }
        }
    }
    chain.zeroize();
    for b in &mut blocks {
        b.zeroize();
    }
}
