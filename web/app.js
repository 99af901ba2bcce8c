'use strict';
// The page: the player's matches (live over server-sent events) and games against the
// engine. Everything comes from this server's JSON API (see the README).

const $ = (id) => document.getElementById(id);
const state = {
  selected: null,   // the shown match's number
  detail: null,     // its detail, as last fetched
  seq: 0,           // detail fetches, to drop late answers
  loading: false,   // a detail fetch is under way
  stale: false,     // and another is due when it ends
  viewPly: null,    // a past position on view, or null for the live one
  shown: null,      // the ply the live board shows: it steps through every ply up to the detail's
  stepping: null,   // the timer of the next step
  picked: null,     // the cell picked as a move's start
  offers: [],
};

async function api(path, options) {
  // A request the server never answers must not stall the page.
  const response = await fetch(path, { ...options, signal: AbortSignal.timeout(10000) });
  let body = null;
  try { body = await response.json(); } catch (_) { body = null; }
  if (!response.ok) {
    throw new Error(body && body.error ? body.error : `HTTP ${response.status}`);
  }
  return body;
}

function post(path, data) {
  return api(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(data),
  });
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function seconds(ms) { return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`; }

function resultText(m) {
  if (m.status === 'live') return `live, ply ${m.plies}`;
  if (m.status === 'aborted') return 'aborted';
  if (!m.goals) return m.broken ? `ended (${m.broken})` : 'ended';
  const ours = m.goals[m.us];
  const who = m.source === 'controller' ? 'we' : 'engine';
  const word = ours === 100 ? (who === 'we' ? 'we won' : 'engine won')
    : ours === 0 ? (who === 'we' ? 'we lost' : 'you won') : 'draw';
  return `${word} (${m.goals.map((g) => (g === null ? '–' : g)).join('–')})`;
}

function clocksText(m) {
  if (m.source === 'page') return `think ${seconds(m.play_clock_ms)}`;
  if (m.source === 'program') return '';
  return `${seconds(m.start_clock_ms)} / ${seconds(m.play_clock_ms)}`;
}

function rolesText(m) {
  const ours = { page: 'engine', program: 'program', controller: 'us' }[m.source];
  return m.roles.map((r, i) => (i === m.us ? `${r} (${ours})` : r)).join(' v ');
}

// ---- the match list ----

let listTimer = null;
function scheduleList() {
  if (listTimer === null) listTimer = setTimeout(() => { listTimer = null; loadList(); }, 150);
}

async function loadList() {
  let data;
  try { data = await api('/api/matches'); } catch (e) { return; }
  const body = $('matches').tBodies[0];
  body.replaceChildren();
  for (const m of data.matches) {
    const open = el('button', { type: 'button', onclick: () => select(m.id) }, `${m.id}`);
    const row = el('tr', { 'data-id': m.id },
      el('td', {}, open), el('td', {}, m.game), el('td', {}, m.size),
      el('td', {}, rolesText(m)),
      el('td', {}, clocksText(m)),
      el('td', {}, m.match_id), el('td', { class: 'result' }, resultText(m)));
    if (m.id === state.selected) row.classList.add('selected');
    body.append(row);
  }
  $('no-matches').hidden = data.matches.length > 0;
}

// ---- one match ----

function select(id) {
  if (state.selected !== id) {
    state.selected = id;
    state.detail = null;
    state.viewPly = null;
    state.picked = null;
    state.shown = null;
    $('move-error').textContent = '';
  }
  history.replaceState(null, '', `#match=${id}`);
  $('match-pane').hidden = false;
  for (const row of $('matches').tBodies[0].rows) {
    row.classList.toggle('selected', Number(row.dataset.id) === id);
  }
  loadDetail();
}

// One detail fetch at a time: changes that arrive meanwhile ask for one more after it.
async function loadDetail() {
  if (state.selected === null) return;
  if (state.loading) { state.stale = true; return; }
  state.loading = true;
  state.stale = false;
  const seq = ++state.seq;
  let d = null;
  try { d = await api(`/api/matches/${state.selected}`); } catch (e) {
    $('status').textContent = e.message;
  }
  state.loading = false;
  if (state.stale) loadDetail();
  if (!d || seq !== state.seq || d.id !== state.selected) return;
  const previous = state.detail;
  state.detail = d;
  if (previous && previous.plies !== d.plies) state.picked = null;
  // A match just opened shows its position as it stands; after that, no ply is skipped.
  if (state.shown === null || state.shown > d.plies) state.shown = d.plies;
  if (state.shown < d.plies) {
    if (state.stepping === null) step();
  } else {
    renderDetail(previous);
  }
}

// Live updates are lossless: each change (or a missed one, found by the next change, a
// 'lagged' event or a reconnection) fetches the whole match, and the live board then
// shows every ply it has not shown yet, one after the other.
const STEP_MS = 120;

function step() {
  state.stepping = null;
  const d = state.detail;
  if (!d || state.shown === null || state.shown >= d.plies) return;
  state.shown += 1;
  // A ply the record did not keep (past its move limit): straight to the position now.
  if (!moveAt(d, state.shown)) state.shown = d.plies;
  renderDetail(null);
  if (state.shown < d.plies) state.stepping = setTimeout(step, STEP_MS);
}

function moveAt(d, ply) { return d.moves.find((m) => m.ply === ply) || null; }

// Whether the live board is behind the match (stepping towards it).
function catchingUp(d) { return state.shown !== null && state.shown < d.plies; }

const LIGHT = new Set(['W', 'w', '2', 'O', 'o']);
const DARK = new Set(['B', 'b', '1', 'X', 'x']);
const EMPTY = new Set(['.', '-', '_', '0']);

function cellWord(text) {
  if (LIGHT.has(text)) return 'light piece';
  if (DARK.has(text)) return 'dark piece';
  if (EMPTY.has(text)) return 'empty';
  return text;
}

function columnName(c) { return String.fromCharCode(97 + c); }

function renderBoard(diagram, legal, last) {
  const board = $('board');
  board.replaceChildren();
  const rows = diagram.rows;
  const d = state.detail;
  board.dataset.plies = state.viewPly === null && catchingUp(d) ? state.shown : d.plies;
  board.dataset.status = catchingUp(d) ? 'live' : d.status;
  board.dataset.board = rows.map((r) => r.join('')).join('\n');
  board.dataset.view = state.viewPly === null ? 'live' : String(state.viewPly);
  if (rows.length === 0) { board.hidden = true; return; }
  board.hidden = false;
  const cols = rows[0].length;
  const cell = Math.max(22, Math.min(44, Math.floor((Math.min(window.innerWidth, 560) - 40) / cols)));
  board.style.setProperty('--cell', `${cell}px`);
  const froms = new Map();
  for (const m of legal || []) {
    if (!m.from) continue;
    const key = m.from.join(',');
    if (!froms.has(key)) froms.set(key, []);
    froms.get(key).push(m);
  }
  const pickedKey = state.picked ? state.picked.join(',') : null;
  const targets = new Map();
  for (const m of froms.get(pickedKey) || []) targets.set(m.to.join(','), m);
  const lastCells = new Set((last || []).map((c) => c.join(',')));
  rows.forEach((row, r) => {
    const rank = rows.length - r;
    const tr = el('tr', {}, el('th', { scope: 'row' }, `${rank}`));
    row.forEach((text, c) => {
      const key = `${r},${c}`;
      const name = `${columnName(c)}${rank}`;
      const label = `${name}: ${cellWord(text)}`;
      let content;
      if (LIGHT.has(text) || DARK.has(text)) {
        content = el('span', { class: `piece ${LIGHT.has(text) ? 'light' : 'dark'}`, 'aria-hidden': 'true' });
      } else if (EMPTY.has(text)) {
        content = '';
      } else {
        content = el('span', { class: 'cell-text' }, text);
      }
      const td = el('td', { role: 'gridcell', 'data-cell': key, 'aria-label': label });
      const playable = froms.has(key) || targets.has(key);
      if (legal && state.viewPly === null && (playable || state.picked)) {
        const extra = targets.has(key) ? ` (move ${targets.get(key).name})` : froms.has(key) ? ' (can move)' : '';
        td.append(el('button', { type: 'button', 'aria-label': label + extra, onclick: () => clickCell([r, c]) }, content));
      } else if (content !== '') {
        td.append(content);
      }
      if (froms.has(key) && !state.picked) td.classList.add('from');
      if (key === pickedKey) td.classList.add('picked');
      if (targets.has(key)) td.classList.add('target');
      if (lastCells.has(key)) td.classList.add('last');
      tr.append(td);
    });
    board.append(tr);
  });
  const foot = el('tr', {}, el('th', {}));
  for (let c = 0; c < cols; c++) foot.append(el('th', { scope: 'col' }, columnName(c)));
  board.append(foot);
}

function clickCell(cell) {
  const d = state.detail;
  if (!d || !d.legal) return;
  const key = cell.join(',');
  if (state.picked) {
    const move = d.legal.find((m) => m.from && m.to && m.from.join(',') === state.picked.join(',') && m.to.join(',') === key);
    if (move) { sendMove(move.name); return; }
  }
  const starts = d.legal.some((m) => m.from && m.from.join(',') === key);
  state.picked = starts && (!state.picked || state.picked.join(',') !== key) ? cell : null;
  renderDetail(d);
  const focus = document.querySelector(`#board td[data-cell="${key}"] button`);
  if (focus) focus.focus();
}

async function sendMove(text) {
  const d = state.detail;
  state.picked = null;
  $('move-error').textContent = '';
  try {
    await post(`/api/games/${d.id}/moves`, { move: text });
    $('move-input').value = '';
  } catch (e) {
    $('move-error').textContent = e.message;
  }
  loadDetail();
}

function moverName(d, m) {
  if (m.mover === null) return '';
  const role = d.roles[m.mover];
  if (d.source === 'page') return m.mover === d.us ? `${role} (engine)` : `${role} (you)`;
  if (d.source === 'program') return m.mover === d.us ? `${role} (program)` : role;
  return m.mover === d.us ? `${role} (us)` : role;
}

// Alpha-beta's score or proven value; Monte-Carlo's win rate of the chosen move.
function scoreText(s) {
  if (!s) return '';
  if (s.proven) return `${s.proven} (proven)`;
  return s.win_rate !== null ? `${Math.round(100 * s.win_rate)}% wins` : `${s.score}`;
}

function renderMoves(d) {
  const body = $('moves').tBodies[0];
  body.replaceChildren();
  for (const m of d.moves) {
    const s = m.search;
    const view = el('button', { type: 'button', 'aria-label': `show the position after ply ${m.ply}`, onclick: () => viewAt(m.ply) }, `${m.ply}`);
    const row = el('tr', { 'data-ply': m.ply },
      el('td', {}, view), el('td', {}, moverName(d, m)), el('td', {}, m.text), el('td', {}, seconds(m.ms)),
      el('td', {}, s ? `${s.depth}` : ''), el('td', {}, scoreText(s)),
      el('td', {}, s ? s.nodes.toLocaleString('en') : ''),
      el('td', {}, s ? s.nodes_per_second.toLocaleString('en') : ''),
      el('td', { class: 'pv', title: s ? s.pv.join(' ') : '' }, s ? pvText(s.pv) : ''));
    if (m.ply === state.viewPly) row.classList.add('viewing');
    body.append(row);
  }
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// The first moves of a principal variation (the whole line is the cell's title).
function pvText(pv) {
  return pv.length > 6 ? `${pv.slice(0, 6).join(' ')} … (${pv.length})` : pv.join(' ');
}

function renderPlot(d) {
  const plot = $('plot');
  plot.replaceChildren();
  const W = 400, H = 120, PAD = 24;
  const cap = 1000;
  // A Monte-Carlo win rate is drawn from -100 (0%) to +100 (100%).
  const points = d.moves.filter((m) => m.search).map((m) => {
    const s = m.search;
    const value = s.win_rate !== null ? Math.round(200 * s.win_rate - 100) : s.score;
    let v = s.proven === 'win' ? cap : s.proven === 'loss' ? -cap : s.proven === 'draw' ? 0 : value;
    v = Math.max(-cap, Math.min(cap, v));
    return [m.ply, v];
  });
  const maxPly = Math.max(2, d.plies);
  const top = Math.max(100, ...points.map((p) => Math.abs(p[1])));
  const x = (ply) => PAD + (ply / maxPly) * (W - 2 * PAD);
  const y = (v) => H / 2 - (v / top) * (H / 2 - 10);
  plot.append(svg('line', { class: 'axis', x1: PAD, y1: H / 2, x2: W - PAD, y2: H / 2 }));
  plot.append(svg('line', { class: 'axis', x1: PAD, y1: 6, x2: PAD, y2: H - 6 }));
  const label = (text, tx, ty) => { const t = svg('text', { x: tx, y: ty }); t.textContent = text; plot.append(t); };
  label(`+${top}`, 2, 12); label(`-${top}`, 2, H - 2); label('0', 12, H / 2 + 3); label(`ply ${maxPly}`, W - PAD - 30, H / 2 + 12);
  if (points.length > 0) {
    plot.append(svg('polyline', { class: 'line', points: points.map(([p, v]) => `${x(p)},${y(v)}`).join(' ') }));
    for (const [p, v] of points) plot.append(svg('circle', { class: 'dot', cx: x(p), cy: y(v), r: 2.5 }));
  }
  plot.setAttribute('aria-label', points.length === 0 ? 'No search scores yet'
    : `The engine's score after each of its ${points.length} moves; the last is ${points[points.length - 1][1]}`);
}

function viewAt(ply) {
  const d = state.detail;
  state.viewPly = ply === d.plies ? null : ply;
  state.picked = null;
  renderDetail(d);
}

function statusText(d) {
  const last = catchingUp(d) ? moveAt(d, state.shown) : d.moves[d.moves.length - 1];
  const said = last ? `Ply ${last.ply}: ${moverName(d, last) || 'all'} played ${last.text}. ` : '';
  if (catchingUp(d)) return said;
  if (d.status !== 'live') return `${said}Game over: ${resultText(d)}.`;
  if (d.source === 'page') return said + (d.legal ? 'Your move.' : 'The engine is thinking…');
  if (d.source === 'program') return said + (d.legal ? 'Your move.' : 'The program\'s move, or waiting for a command.');
  return said || 'Waiting for the first move.';
}

function renderDetail(previous) {
  const d = state.detail;
  if (!d) return;
  $('match-title').textContent = `#${d.id} ${d.game} ${d.size}`.trim();
  const clocks = d.source === 'page' ? `engine thinks ${seconds(d.play_clock_ms)}`
    : d.source === 'program' ? 'moves typed in the program or made here'
      : `start clock ${seconds(d.start_clock_ms)}, play clock ${seconds(d.play_clock_ms)}`;
  $('match-info').textContent = `${rolesText(d)} · ${d.match_id} · ${clocks} · played by the ${d.model} · ${resultText(d)}`;
  const viewing = state.viewPly === null ? null : d.moves.find((m) => m.ply === state.viewPly);
  if (state.viewPly !== null && !viewing) state.viewPly = null;
  const live = catchingUp(d) ? moveAt(d, state.shown) : null;
  const diagram = viewing ? viewing.diagram : live ? live.diagram : d.diagram;
  const lastMove = viewing || live || d.moves[d.moves.length - 1];
  const before = lastMove ? (d.moves.find((m) => m.ply === lastMove.ply - 1) || null) : null;
  renderBoard(diagram, state.viewPly === null && !live ? d.legal : null, changedCells(before ? before.diagram : null, lastMove ? lastMove.diagram : null));
  $('notes').textContent = diagram.notes.join('\n');
  $('live-button').hidden = state.viewPly === null;
  const playing = d.source !== 'controller' && d.status === 'live';
  $('play-controls').hidden = !playing;
  $('resign').disabled = !playing;
  $('resign').hidden = d.source !== 'page';
  const list = $('legal-moves');
  list.replaceChildren(...[...new Set((d.legal || []).map((m) => m.name))].map((name) => el('option', { value: name })));
  renderMoves(d);
  renderPlot(d);
  const text = statusText(d);
  if (!previous || previous.version !== d.version || $('status').textContent !== text) $('status').textContent = text;
}

function changedCells(a, b) {
  if (!b || !a || a.rows.length !== b.rows.length) return [];
  const out = [];
  b.rows.forEach((row, r) => row.forEach((t, c) => { if (a.rows[r][c] !== t) out.push([r, c]); }));
  return out.length <= 4 ? out : [];
}

// ---- a new game ----

function fillOffer() {
  const offer = state.offers.find((o) => o.name === $('game').value);
  if (!offer) return;
  $('size').value = offer.default_size;
  $('sizes').textContent = `${offer.about}. Sizes: ${offer.sizes}.`;
  $('variant').replaceChildren(...offer.variants.map((v) => el('option', { value: v }, v)));
  $('side').replaceChildren(...offer.sides.map((s) => el('option', { value: s }, s)));
}

async function loadOffers() {
  try {
    state.offers = (await api('/api/games')).games;
  } catch (e) { $('form-error').textContent = e.message; return; }
  $('game').replaceChildren(...state.offers.map((o) => el('option', { value: o.name }, o.name)));
  fillOffer();
}

async function startGame(event) {
  event.preventDefault();
  $('form-error').textContent = '';
  const think = Math.round(Number($('think').value) * 1000);
  try {
    const { id } = await post('/api/games', {
      game: $('game').value, size: $('size').value, variant: $('variant').value,
      side: $('side').value, think_ms: think,
    });
    select(id);
    loadList();
  } catch (e) {
    $('form-error').textContent = e.message;
  }
}

// ---- live updates ----

function connect() {
  const events = new EventSource('/api/events');
  events.addEventListener('hello', () => { $('conn').textContent = 'live'; loadList(); loadDetail(); });
  events.addEventListener('change', (e) => {
    const change = JSON.parse(e.data);
    scheduleList();
    if (change.id === state.selected && (!state.detail || state.detail.version < change.version)) loadDetail();
  });
  events.addEventListener('lagged', () => { loadList(); loadDetail(); });
  events.onerror = () => { $('conn').textContent = 'reconnecting…'; };
}

function init() {
  $('new-game').addEventListener('submit', startGame);
  $('game').addEventListener('change', fillOffer);
  $('move-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('move-input').value.trim();
    if (text) sendMove(text);
  });
  $('resign').addEventListener('click', async () => {
    try { await post(`/api/games/${state.detail.id}/resign`, {}); } catch (e) { $('move-error').textContent = e.message; }
    loadDetail();
  });
  $('new-game-button').addEventListener('click', () => { $('game').focus(); });
  $('live-button').addEventListener('click', () => viewAt(state.detail.plies));
  const m = /^#match=(\d+)$/.exec(location.hash);
  if (m) select(Number(m[1]));
  loadOffers();
  loadList();
  connect();
}

init();
