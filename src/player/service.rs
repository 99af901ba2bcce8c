//! The search service: every search runs on a `std::thread` of its own, so that none
//! ever runs on a tokio worker, and none waits behind another for a thread.
//!
//! A job is any search (an agent's over a game's engine, the reasoner's tree search) with
//! the limits it must keep; its result comes back on a `tokio::sync::oneshot` channel.
//! The [`Pending`] handle the caller keeps owns the job's stop flag and raises it when
//! dropped, so a request that goes away (or gives up waiting) stops its search.
//!
//! The cores are split fairly among the move searches running at once: each is told, in
//! its limits, to use at most the cores divided by the move searches then running
//! (itself included, at least one thread), and all of them run to their own deadlines.
//! A pool of workers with a queue would make the later searches of a busy moment wait,
//! and then answer with the quick fallback move or late; sharing by time slices costs
//! each search some depth instead. Pondering (searching on the opponent's time to warm a
//! match's table) and a match's preparation in its start clock are registered here by
//! match: any move search stops every such job, and none starts while a move search
//! runs, so that a reply always gets the cores. So is the work a match leaves after a
//! move (freeing what its search dropped), which gives way in the same way.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use tokio::sync::oneshot;
use tracing::{debug, error};

use crate::search::Limits;

/// Starts searches, each on a thread of its own, and shares the cores among them.
pub struct SearchService {
    cores: usize,
    /// Move searches running now (not ponders).
    moves: Arc<AtomicUsize>,
    /// The jobs that give way to move searches (ponders, preparations), by match.
    ponders: Mutex<HashMap<String, Yielding>>,
}

/// A job that gives way to move searches; dropping this stops it.
struct Yielding {
    stop: Arc<AtomicBool>,
    /// Work left after a move (freeing memory), which the match's next message does not
    /// stop: it holds nothing that message needs.
    tidy: bool,
    /// A ponder's result channel, kept open so that the job runs (nobody awaits it); a
    /// preparation's is the caller's [`Pending`].
    _result: Option<oneshot::Receiver<()>>,
}

impl Drop for Yielding {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The search service could not take a job.
#[derive(Debug, thiserror::Error)]
#[error("cannot start a search thread: {0}")]
pub struct CannotSearch(#[from] std::io::Error);

/// What a job counts as while it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Move,
    /// A ponder or a preparation, which gives way to move searches.
    Yielding,
}

impl SearchService {
    /// A service that shares `cores` (at least one) among its searches.
    pub fn new(cores: usize) -> SearchService {
        SearchService {
            cores: cores.max(1),
            moves: Arc::default(),
            ponders: Mutex::new(HashMap::new()),
        }
    }

    #[cfg(test)]
    pub(super) fn cores(&self) -> usize {
        self.cores
    }

    /// Starts `search`, which must keep the limits it is given: they end at `deadline`
    /// (hard) and when the handle is dropped, and name the threads it may use. Every
    /// ponder job stops first, so that this search gets the cores.
    pub fn submit<T, F>(&self, deadline: Instant, search: F) -> Result<Pending<T>, CannotSearch>
    where
        T: Send + 'static,
        F: FnOnce(&Limits) -> T + Send + 'static,
    {
        self.ponders().clear();
        let (result, stop) = self.start(Kind::Move, deadline, search)?;
        Ok(Pending { result, stop })
    }

    /// Starts a search whose only purpose is to prepare `match_id`'s next move (filling
    /// its table on the opponent's time, or during the start clock), unless a move search
    /// is running. It stops at `deadline`, at [`SearchService::stop_pondering`] for the
    /// match, at its next ponder, or as soon as any move search is submitted.
    pub fn ponder<F>(
        &self,
        match_id: &str,
        deadline: Instant,
        search: F,
    ) -> Result<(), CannotSearch>
    where
        F: FnOnce(&Limits) + Send + 'static,
    {
        self.yielding(match_id, deadline, search, false, false)
            .map(drop)
    }

    /// Starts work left after `match_id`'s move (freeing what its search dropped) as a
    /// ponder does, but [`SearchService::stop_pondering`] leaves it running.
    pub fn tidy<F>(&self, match_id: &str, deadline: Instant, job: F) -> Result<(), CannotSearch>
    where
        F: FnOnce(&Limits) + Send + 'static,
    {
        self.yielding(match_id, deadline, job, false, true)
            .map(drop)
    }

    /// Starts `match_id`'s preparation in its start clock, which gives way to move
    /// searches as a ponder does, but whose end the caller awaits; `None` while a move
    /// search runs (the match's later searches do what it would have done).
    pub fn prepare<F>(
        &self,
        match_id: &str,
        deadline: Instant,
        search: F,
    ) -> Result<Option<Pending<()>>, CannotSearch>
    where
        F: FnOnce(&Limits) + Send + 'static,
    {
        self.yielding(match_id, deadline, search, true, false)
    }

    /// Starts a job that gives way to move searches, registered as `match_id`'s (its
    /// earlier one dropped, and so stopped, either way), unless a move search runs; its
    /// handle if `awaited`.
    fn yielding<F>(
        &self,
        match_id: &str,
        deadline: Instant,
        search: F,
        awaited: bool,
        tidy: bool,
    ) -> Result<Option<Pending<()>>, CannotSearch>
    where
        F: FnOnce(&Limits) + Send + 'static,
    {
        let mut ponders = self.ponders();
        ponders.remove(match_id);
        if self.moves.load(Ordering::SeqCst) > 0 {
            debug!(
                match_id,
                awaited, "not pondering: a move search has the cores"
            );
            return Ok(None);
        }
        let (result, stop) = self.start(Kind::Yielding, deadline, search)?;
        let (kept, handed) = if awaited {
            let stop = Arc::clone(&stop);
            (None, Some(Pending { result, stop }))
        } else {
            (Some(result), None)
        };
        let job = Yielding {
            stop,
            tidy,
            _result: kept,
        };
        ponders.insert(match_id.to_owned(), job);
        Ok(handed)
    }

    /// Stops `match_id`'s ponder or preparation, if it has one (not its tidying).
    pub fn stop_pondering(&self, match_id: &str) {
        let mut ponders = self.ponders();
        if ponders.get(match_id).is_some_and(|job| !job.tidy) {
            ponders.remove(match_id);
        }
    }

    /// Whether `match_id` has a ponder (or preparation) job that has not been stopped.
    #[cfg(test)]
    pub(super) fn is_pondering(&self, match_id: &str) -> bool {
        self.ponders()
            .get(match_id)
            .is_some_and(|p| !p.stop.load(Ordering::Relaxed))
    }

    fn ponders(&self) -> std::sync::MutexGuard<'_, HashMap<String, Yielding>> {
        self.ponders.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts `search` on a thread of its own: its result channel and stop flag.
    fn start<T, F>(
        &self,
        kind: Kind,
        deadline: Instant,
        search: F,
    ) -> Result<(oneshot::Receiver<T>, Arc<AtomicBool>), CannotSearch>
    where
        T: Send + 'static,
        F: FnOnce(&Limits) -> T + Send + 'static,
    {
        let stop = Arc::new(AtomicBool::new(false));
        let (reply, result) = oneshot::channel();
        // Counted from now, not from when the thread runs: a burst of submissions sees
        // every search of the burst.
        let running = (kind == Kind::Move).then(|| Running::enter(&self.moves));
        let sharing = self.moves.load(Ordering::SeqCst).max(1);
        let limits = Limits::until(deadline)
            .with_stop(Arc::clone(&stop))
            .with_max_threads((self.cores / sharing).max(1));
        let job_stop = Arc::clone(&stop);
        let run = move || {
            if reply.is_closed() || job_stop.load(Ordering::Relaxed) {
                debug!("search dropped before it started");
                return;
            }
            let found = catch_unwind(AssertUnwindSafe(|| search(&limits)));
            // No longer sharing the cores once it has its answer.
            drop(running);
            match found {
                Ok(found) => {
                    // The requester may have given up: nothing to do then.
                    let _ = reply.send(found);
                }
                // Dropping `reply` tells the requester.
                Err(_) => error!("a search panicked"),
            }
        };
        let name = match kind {
            Kind::Move => "search",
            Kind::Yielding => "ponder",
        };
        thread::Builder::new().name(name.to_owned()).spawn(run)?;
        Ok((result, stop))
    }
}

/// One running move search, counted while it lives.
struct Running(Arc<AtomicUsize>);

impl Running {
    fn enter(count: &Arc<AtomicUsize>) -> Running {
        count.fetch_add(1, Ordering::SeqCst);
        Running(Arc::clone(count))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A queued or running search. Dropping it stops the search.
pub struct Pending<T> {
    result: oneshot::Receiver<T>,
    stop: Arc<AtomicBool>,
}

impl<T> Pending<T> {
    /// The search's result, unless it failed or is not done by `give_up_at` (the search is
    /// then stopped).
    pub async fn wait_until(mut self, give_up_at: Instant) -> Result<T, Late> {
        let deadline = tokio::time::Instant::from_std(give_up_at);
        match tokio::time::timeout_at(deadline, &mut self.result).await {
            Ok(Ok(found)) => Ok(found),
            Ok(Err(_)) => Err(Late::Failed),
            Err(_) => Err(Late::TimedOut),
        }
    }
}

impl<T> Drop for Pending<T> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Why no search result is available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Late {
    #[error("the search did not finish in time")]
    TimedOut,
    #[error("the search failed")]
    Failed,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A search that runs until its limits stop it and then says how long it ran.
    fn until_stopped(limits: &Limits) -> Duration {
        let started = Instant::now();
        let stop = limits
            .stop
            .clone()
            .expect("the service gives every job a stop flag");
        let deadline = limits.hard_deadline.expect("and a deadline");
        while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        started.elapsed()
    }

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    #[tokio::test]
    async fn searches_off_the_runtime_and_meets_the_deadline() {
        let service = SearchService::new(2);
        assert_eq!(service.cores(), 2);
        let start = Instant::now();
        let deadline = start + Duration::from_millis(150);
        let runtime_thread = std::thread::current().id();
        let pending = service
            .submit(deadline, move |limits| {
                (
                    std::thread::current().id() != runtime_thread,
                    until_stopped(limits),
                )
            })
            .unwrap();
        let (elsewhere, ran) = pending
            .wait_until(deadline + Duration::from_millis(500))
            .await
            .unwrap();
        assert!(elsewhere, "searched on a thread of the service");
        // Generous: the machine may be busy; this checks that the deadline is kept at all.
        assert!(ran >= Duration::from_millis(100), "{ran:?}");
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
    }

    #[tokio::test]
    async fn a_move_search_stops_pondering_at_once() {
        let service = SearchService::new(1);
        let (done, pondered) = oneshot::channel();
        service
            .ponder("m", far(), move |limits| {
                let _ = done.send(until_stopped(limits));
            })
            .unwrap();
        assert!(service.is_pondering("m"));
        std::thread::sleep(Duration::from_millis(50));
        let start = Instant::now();
        let soon = start + Duration::from_millis(100);
        let pending = service.submit(soon, until_stopped).unwrap();
        assert!(
            pending
                .wait_until(soon + Duration::from_secs(2))
                .await
                .is_ok()
        );
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        // The ponder job ended, stopped, and is no longer registered.
        assert!(!service.is_pondering("m"));
        // It ended: with how long it ran, or without a result if it was stopped before
        // its thread started.
        let ran = tokio::time::timeout(Duration::from_secs(10), pondered).await;
        if let Ok(ran) = ran.expect("the ponder job ended") {
            assert!(ran < Duration::from_secs(10), "{ran:?}");
        }
    }

    #[tokio::test]
    async fn a_preparation_is_awaited_and_gives_way_to_a_move_search() {
        let service = SearchService::new(1);
        let preparing = service.prepare("m", far(), until_stopped_unit).unwrap();
        let preparing = preparing.expect("no move search runs: the preparation starts");
        assert!(service.is_pondering("m"));
        std::thread::sleep(Duration::from_millis(50));
        let start = Instant::now();
        let soon = start + Duration::from_millis(100);
        let pending = service.submit(soon, until_stopped).unwrap();
        // The move search stopped it: it ends long before its own deadline (an hour away),
        // with its result, or closed if it was stopped before its thread ran.
        let ended = preparing.wait_until(start + Duration::from_secs(10)).await;
        assert_ne!(ended.err(), Some(Late::TimedOut));
        assert!(!service.is_pondering("m"));
        assert!(pending.wait_until(far()).await.is_ok());
        // While a move search runs, no preparation starts.
        let running = service.submit(far(), until_stopped).unwrap();
        assert!(
            service
                .prepare("n", far(), until_stopped_unit)
                .unwrap()
                .is_none()
        );
        assert!(!service.is_pondering("n"));
        drop(running);
    }

    #[tokio::test]
    async fn a_match_s_ponder_stops_when_told_or_replaced() {
        let service = SearchService::new(2);
        let (first_done, first) = oneshot::channel();
        service
            .ponder("m", far(), move |l| {
                let _ = first_done.send(until_stopped(l));
            })
            .unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let (second_done, second) = oneshot::channel();
        // A second ponder of the same match replaces (and stops) the first.
        service
            .ponder("m", far(), move |l| {
                let _ = second_done.send(until_stopped(l));
            })
            .unwrap();
        // Generous: the jobs stop at once, but a loaded machine may start them late. A job
        // stopped before its thread ran ends without a result (its channel closes), which
        // is as good: what matters is that it ended.
        let wait = Duration::from_secs(10);
        assert!(tokio::time::timeout(wait, first).await.is_ok());
        assert!(service.is_pondering("m"));
        service.stop_pondering("m");
        assert!(!service.is_pondering("m"));
        assert!(tokio::time::timeout(wait, second).await.is_ok());
    }

    #[tokio::test]
    async fn a_match_s_tidying_outlives_its_next_message_but_not_a_move_search_or_ponder() {
        let service = SearchService::new(1);
        service.tidy("m", far(), until_stopped_unit).unwrap();
        // What a message about the match stops is a ponder, not the tidying.
        service.stop_pondering("m");
        assert!(service.is_pondering("m"));
        // A ponder of the match replaces it.
        service.ponder("m", far(), until_stopped_unit).unwrap();
        service.stop_pondering("m");
        assert!(!service.is_pondering("m"));
        // A move search stops it.
        service.tidy("m", far(), until_stopped_unit).unwrap();
        let pending = service.submit(far(), until_stopped).unwrap();
        assert!(!service.is_pondering("m"));
        drop(pending);
    }

    /// Four move searches submitted at once on two cores: none waits for another, each
    /// is told its share of the cores when it starts, and each keeps its own deadline.
    #[tokio::test]
    async fn searches_at_once_share_the_cores_and_none_waits() {
        let service = SearchService::new(2);
        let start = Instant::now();
        let deadline = start + Duration::from_millis(1000);
        let pendings: Vec<_> = (0..4)
            .map(|_| {
                service
                    .submit(deadline, move |limits| {
                        let began = start.elapsed();
                        until_stopped(limits);
                        (limits.threads(8), began)
                    })
                    .unwrap()
            })
            .collect();
        // A ponder asked for while they run does not start.
        service.ponder("m", far(), |_| ()).unwrap();
        assert!(!service.is_pondering("m"));
        let mut shares = Vec::new();
        for pending in pendings {
            let (threads, began) = pending
                .wait_until(deadline + Duration::from_secs(2))
                .await
                .unwrap();
            // Every search began long before the first could have ended (a queue would
            // have started the later ones only at the deadline).
            assert!(began < Duration::from_millis(900), "{began:?}");
            shares.push(threads);
        }
        assert_eq!(shares, [2, 1, 1, 1]);
        // Once they are done, a search alone gets every core again, and pondering may
        // start.
        let alone = service
            .submit(far(), |limits| limits.threads(8))
            .unwrap()
            .wait_until(far())
            .await
            .unwrap();
        assert_eq!(alone, 2);
        service.ponder("m", far(), until_stopped_unit).unwrap();
        assert!(service.is_pondering("m"));
    }

    fn until_stopped_unit(limits: &Limits) {
        until_stopped(limits);
    }

    #[tokio::test]
    async fn dropping_the_handle_stops_the_search() {
        let service = SearchService::new(1);
        let pending = service.submit(far(), until_stopped).unwrap();
        // Give up at once: the worker must become free quickly.
        let r = pending
            .wait_until(Instant::now() + Duration::from_millis(50))
            .await;
        assert_eq!(r.unwrap_err(), Late::TimedOut);
        let start = Instant::now();
        let soon = start + Duration::from_millis(100);
        let pending = service.submit(soon, until_stopped).unwrap();
        assert!(
            pending
                .wait_until(soon + Duration::from_secs(2))
                .await
                .is_ok()
        );
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
    }
}
