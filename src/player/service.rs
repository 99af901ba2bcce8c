//! The search service: long-lived `std::thread` workers that run searches, so that no
//! search ever runs on a tokio worker.
//!
//! A job is any search (an agent's over a game's engine, the reasoner's tree search) with
//! the limits it must keep; its result comes back on a `tokio::sync::oneshot` channel.
//! The [`Pending`] handle the caller keeps owns the job's stop flag and raises it when
//! dropped, so a request that goes away (or gives up waiting) stops its search. Pondering
//! (searching on the opponent's time to warm a match's table) is registered here by
//! match: any move search stops every ponder, so that a reply always gets the threads.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Instant;

use tokio::sync::oneshot;
use tracing::{debug, error};

use crate::search::Limits;

/// A queued search, its type erased: the worker only runs it.
struct Job {
    stop: Arc<AtomicBool>,
    /// Searches and sends the result; `false` if the requester no longer waits.
    run: Box<dyn FnOnce() -> bool + Send>,
}

/// A pool of search threads fed by one queue.
pub struct SearchService {
    queue: mpsc::Sender<Job>,
    threads: usize,
    /// The ponder jobs queued or running, by match; dropping one stops it.
    ponders: Mutex<HashMap<String, Pending<()>>>,
}

/// The search service could not take a job (its threads are gone).
#[derive(Debug, thiserror::Error)]
#[error("the search service has stopped")]
pub struct ServiceStopped;

impl SearchService {
    /// Starts `threads` worker threads (at least one).
    pub fn new(threads: usize) -> std::io::Result<SearchService> {
        let threads = threads.max(1);
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        for i in 0..threads {
            let jobs = Arc::clone(&jobs);
            thread::Builder::new()
                .name(format!("search-{i}"))
                .spawn(move || worker(&jobs))?;
        }
        Ok(SearchService {
            queue,
            threads,
            ponders: Mutex::new(HashMap::new()),
        })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Queues `search`, which must keep the limits it is given: they end at `deadline`
    /// (hard) and when the handle is dropped. Every ponder job stops first, so that this
    /// search gets the threads at once.
    pub fn submit<T, F>(&self, deadline: Instant, search: F) -> Result<Pending<T>, ServiceStopped>
    where
        T: Send + 'static,
        F: FnOnce(&Limits) -> T + Send + 'static,
    {
        self.ponders().clear();
        self.queue_job(deadline, search)
    }

    /// Queues a search whose only purpose is to prepare `match_id`'s next move (filling
    /// its table on the opponent's time, or during the start clock). It stops at
    /// `deadline`, at [`SearchService::stop_pondering`] for the match, at its next ponder,
    /// or as soon as any move search is submitted.
    pub fn ponder<F>(
        &self,
        match_id: &str,
        deadline: Instant,
        search: F,
    ) -> Result<(), ServiceStopped>
    where
        F: FnOnce(&Limits) + Send + 'static,
    {
        let pending = self.queue_job(deadline, search)?;
        // An earlier ponder of the match is dropped, and so stopped.
        self.ponders().insert(match_id.to_owned(), pending);
        Ok(())
    }

    /// Stops `match_id`'s ponder job, if it has one.
    pub fn stop_pondering(&self, match_id: &str) {
        self.ponders().remove(match_id);
    }

    /// Whether `match_id` has a ponder job that has not been stopped.
    #[cfg(test)]
    pub(super) fn is_pondering(&self, match_id: &str) -> bool {
        self.ponders()
            .get(match_id)
            .is_some_and(|p| !p.stop.load(Ordering::Relaxed))
    }

    fn ponders(&self) -> std::sync::MutexGuard<'_, HashMap<String, Pending<()>>> {
        self.ponders.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn queue_job<T, F>(&self, deadline: Instant, search: F) -> Result<Pending<T>, ServiceStopped>
    where
        T: Send + 'static,
        F: FnOnce(&Limits) -> T + Send + 'static,
    {
        let stop = Arc::new(AtomicBool::new(false));
        let (reply, result) = oneshot::channel();
        let limits = Limits::until(deadline).with_stop(Arc::clone(&stop));
        let run = move || {
            if reply.is_closed() {
                return false;
            }
            match catch_unwind(AssertUnwindSafe(|| search(&limits))) {
                Ok(found) => {
                    // The requester may have given up: nothing to do then.
                    let _ = reply.send(found);
                }
                // Dropping `reply` tells the requester; the thread lives on.
                Err(_) => error!("a search panicked"),
            }
            true
        };
        let job = Job {
            stop: Arc::clone(&stop),
            run: Box::new(run),
        };
        self.queue.send(job).map_err(|_| ServiceStopped)?;
        Ok(Pending { result, stop })
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

fn worker(jobs: &Mutex<mpsc::Receiver<Job>>) {
    loop {
        let job = {
            let jobs = jobs.lock().unwrap_or_else(|e| e.into_inner());
            match jobs.recv() {
                Ok(job) => job,
                Err(_) => return, // the service was dropped
            }
        };
        if job.stop.load(Ordering::Relaxed) || !(job.run)() {
            debug!("search job dropped before it started");
        }
    }
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
        let service = SearchService::new(2).unwrap();
        assert_eq!(service.threads(), 2);
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
        // One thread: the move search can only run once the ponder job has let go.
        let service = SearchService::new(1).unwrap();
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
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
        // The ponder job ended, stopped, and is no longer registered.
        assert!(!service.is_pondering("m"));
        let ran = tokio::time::timeout(Duration::from_secs(2), pondered).await;
        assert!(ran.unwrap().unwrap() < Duration::from_secs(2));
    }

    #[tokio::test]
    async fn a_match_s_ponder_stops_when_told_or_replaced() {
        let service = SearchService::new(2).unwrap();
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
        let wait = Duration::from_secs(2);
        assert!(tokio::time::timeout(wait, first).await.unwrap().is_ok());
        assert!(service.is_pondering("m"));
        service.stop_pondering("m");
        assert!(!service.is_pondering("m"));
        assert!(tokio::time::timeout(wait, second).await.unwrap().is_ok());
    }

    #[tokio::test]
    async fn dropping_the_handle_stops_the_search() {
        let service = SearchService::new(1).unwrap();
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
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
    }
}
