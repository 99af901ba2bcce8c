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
  lost: false,      // the connection to the server is lost
};

// What plays our side: a game's own engine, or Monte-Carlo search on the rules as sent,
// answered by the propositional network compiled from them or by the reasoner.
const MODEL_NAMES = { engine: 'engine', propnet: 'propositional network', reasoner: 'reasoner' };
const MODEL_PLAYS = {
  engine: 'engine',
  propnet: 'propositional network: Monte-Carlo search on the rules compiled to a circuit',
  reasoner: 'reasoner: Monte-Carlo search on the rules',
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

function capital(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

// ---- who plays, and how a game ended ----

// Who plays seat `i`: in a page game the engine or you, in the program's game the
// program or you, in a controller's match this player or its opponent.
function playerOf(d, i) {
  if (d.source === 'page') return i === d.us ? 'engine' : 'you';
  if (d.source === 'program') return i === d.us ? 'program' : 'you';
  return i === d.us ? 'us' : 'opponent';
}

function roleName(d, i) { return `${capital(d.roles[i])} (${playerOf(d, i)})`; }

function goalsText(goals) { return goals.map((g) => (g === null ? '–' : g)).join('–'); }

// The winner's seat, -1 for a draw, or null when the goals say neither.
function winnerOf(goals) {
  if (!goals || goals.some((g) => g === null)) return null;
  const best = Math.max(...goals);
  const at = goals.filter((g) => g === best).length;
  if (at === goals.length) return -1;
  return at === 1 ? goals.indexOf(best) : null;
}

// What the winner means to the person watching: "you won", "the engine won", …
function whoWon(d, winner) {
  if (winner === -1) return 'a draw';
  const p = playerOf(d, winner);
  return { you: 'you won', engine: 'the engine won', program: 'the program won', us: 'we won', opponent: 'we lost' }[p];
}

// "White wins (100–0): the engine won" for the status line.
function outcomeText(d) {
  if (d.status === 'aborted') return 'aborted by the controller';
  if (!d.goals && d.broken) return `ended (${d.broken})`;
  if (!d.goals) return d.source === 'controller' ? 'stopped by the controller before the game\'s end' : 'ended';
  const winner = winnerOf(d.goals);
  const goals = goalsText(d.goals);
  const resigned = d.broken ? `${capital(d.broken)}; ` : '';
  if (winner === null) return `${resigned}goals ${d.roles.map((r, i) => `${r} ${d.goals[i] === null ? '–' : d.goals[i]}`).join(', ')}`;
  if (winner === -1) return `${resigned}a draw (${goals})`;
  return `${resigned}${capital(d.roles[winner])} wins (${goals}): ${whoWon(d, winner)}`;
}

// The list's short result: "we won (100–0)", "live, ply 12".
function resultText(m) {
  if (m.status === 'live') return `live, ply ${m.plies}`;
  if (m.status === 'aborted') return 'aborted';
  if (!m.goals) return m.broken ? `ended (${m.broken})` : 'ended';
  const winner = winnerOf(m.goals);
  const word = winner === null ? 'ended' : winner === -1 ? 'draw' : whoWon(m, winner).replace('the ', '');
  return `${word} (${goalsText(m.goals)})`;
}

function clocksText(m) {
  if (m.source === 'page') return `think ${seconds(m.play_clock_ms)}`;
  if (m.source === 'program') return '';
  return `${seconds(m.start_clock_ms)} / ${seconds(m.play_clock_ms)}`;
}

function rolesText(m) {
  return m.roles.map((r, i) => `${r} (${playerOf(m, i)})`).join(' v ');
}

// A long match id, cut to fit the list (the whole id is the cell's title).
function shortId(id) { return id.length > 18 ? `${id.slice(0, 17)}…` : id; }

// ---- the match list ----

let listTimer = null;
function scheduleList() {
  if (listTimer === null) listTimer = setTimeout(() => { listTimer = null; loadList(); }, 150);
}

async function loadList() {
  let data;
  try { data = await api('/api/matches'); } catch (e) { return; }
  const body = $('matches').tBodies[0];
  const focused = document.activeElement && document.activeElement.closest('#matches tbody tr');
  const focusedId = focused ? Number(focused.dataset.id) : null;
  body.replaceChildren();
  for (const m of data.matches) {
    const open = () => select(m.id);
    const row = el('tr', {
      'data-id': m.id, tabindex: '0', class: 'open-row',
      'aria-label': `Open match ${m.id}: ${m.game} ${m.size}, ${resultText(m)}`,
      onclick: open,
      onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } },
    },
    el('td', {}, `${m.id}`), el('td', {}, `${m.game} ${m.size}`.trim()),
    el('td', {}, rolesText(m)),
    el('td', { class: 'wide-only' }, clocksText(m)),
    el('td', { class: 'wide-only match-id', title: m.match_id }, m.source === 'controller' ? shortId(m.match_id) : `(${m.source === 'page' ? 'page game' : 'program'})`),
    el('td', { class: 'result' }, resultText(m)));
    if (m.id === state.selected) row.classList.add('selected');
    row.setAttribute('aria-current', m.id === state.selected ? 'true' : 'false');
    body.append(row);
    if (m.id === focusedId) row.focus();
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
    if (state.stepping !== null) { clearTimeout(state.stepping); state.stepping = null; }
    $('move-error').textContent = '';
  }
  if (location.hash !== `#match=${id}`) history.replaceState(null, '', `#match=${id}`);
  $('match-pane').hidden = false;
  for (const row of $('matches').tBodies[0].rows) {
    const on = Number(row.dataset.id) === id;
    row.classList.toggle('selected', on);
    row.setAttribute('aria-current', on ? 'true' : 'false');
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
    if (!state.lost) $('status').textContent = e.message;
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

// ---- squares and moves in the board's own coordinates ----

const LIGHT = new Set(['W', 'w', '2', 'O', 'o']);
const DARK = new Set(['B', 'b', '1', 'X', 'x']);
const EMPTY = new Set(['.', '-', '_', '0', '']);
// A GDL state's values drawn as discs of their colour.
const COLOURED = new Set(['red', 'yellow', 'black', 'white', 'blue', 'green']);

function cellWord(text) {
  if (LIGHT.has(text)) return 'light piece';
  if (DARK.has(text)) return 'dark piece';
  if (EMPTY.has(text)) return 'empty';
  return text;
}

// The labels drawn around the board: columns a, b, … and rows numbered from the bottom,
// unless the position names them (a GDL state's coordinates) or the game numbers its
// rows from the top (6x6 Lines of Action).
function labels(d, diagram) {
  const rows = diagram.rows.length;
  const cols = rows ? diagram.rows[0].length : 0;
  const col = diagram.col_labels.length === cols ? diagram.col_labels
    : Array.from({ length: cols }, (_, c) => String.fromCharCode(97 + c));
  const fromTop = d.game === 'loa6';
  const row = diagram.row_labels.length === rows ? diagram.row_labels
    : Array.from({ length: rows }, (_, r) => `${fromTop ? r + 1 : rows - r}`);
  // A GDL state's cell is named by its coordinates in the facts' order ("1 3").
  const facts = diagram.row_labels.length === rows && rows > 0;
  return { row, col, facts, rowFirst: diagram.row_first };
}

function squareName(names, [r, c]) {
  if (names.facts) return names.rowFirst ? `${names.row[r]} ${names.col[c]}` : `${names.col[c]} ${names.row[r]}`;
  return `${names.col[c]}${names.row[r]}`;
}

// The cells a move in the game's notation goes from and to ([row, column] from the top
// left), for the games whose notation the page reads; null otherwise.
function moveCells(d, text, rows) {
  let m;
  if (d.game === 'breakthrough' && (m = /^\(\s*move\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\)$/.exec(text))) {
    const [x1, y1, x2, y2] = m.slice(1).map(Number);
    return { from: [rows - y1, x1 - 1], to: [rows - y2, x2 - 1] };
  }
  if (d.game === 'ataxx' && (m = /^(\d+):(\d+):(\d+):(\d+):?$/.exec(text))) {
    const [x1, y1, x2, y2] = m.slice(1).map(Number);
    return { from: [y1, x1], to: [y2, x2] };
  }
  if (d.game === 'halma' && (m = /^[EJ]\s+(\d+),(\d+)\s+(\d+),(\d+)$/i.exec(text))) {
    const [x1, y1, x2, y2] = m.slice(1).map(Number);
    return { from: [y1, x1], to: [y2, x2] };
  }
  if ((d.game === 'loa6' || d.game === 'loa8') && (m = /^([a-h])([1-8])-([a-h])([1-8])$/i.exec(text))) {
    const row = (rank) => (d.game === 'loa6' ? rank - 1 : rows - rank);
    return { from: [row(Number(m[2])), m[1].toLowerCase().charCodeAt(0) - 97], to: [row(Number(m[4])), m[3].toLowerCase().charCodeAt(0) - 97] };
  }
  return null;
}

// A move as the board's labels name it ("c13–d12", a chain of jumps by every landing:
// "c13–e11–g9"), and the game's own notation beside it where that differs:
// "c13–d12 (E 2,3 3,4)".
function moveText(d, text, brief, path) {
  const diagram = d.diagram;
  const cells = moveCells(d, text, diagram.rows.length);
  if (!cells) return text;
  const names = labels(d, diagram);
  const squares = path && path.length > 2 ? path : [cells.from, cells.to];
  const name = squares.map((cell) => squareName(names, cell)).join('–');
  if (brief || name === text.replace('-', '–')) return name;
  // A GDL term's own parentheses are the ones around it.
  const own = /^\(.*\)$/.test(text) ? text.slice(1, -1) : text;
  return `${name} (${own})`;
}

// ---- the board ----

// Halma's camps: Black's home is the top left corner's 19 squares, White's the bottom
// right's.
function campOf(d, r, c, rows) {
  if (d.game !== 'halma') return null;
  const n = rows - 1;
  if (r + c <= 5 && r <= 4 && c <= 4) return 'camp-black';
  if ((n - r) + (n - c) <= 5 && n - r <= 4 && n - c <= 4) return 'camp-white';
  return null;
}

function pieceOf(diagram, text) {
  if (diagram.text_cells) {
    if (text === '') return '';
    const low = text.toLowerCase();
    if (COLOURED.has(low)) return el('span', { class: `piece disc-${low}`, 'aria-hidden': 'true' });
    return el('span', { class: `cell-text mark-${low.length === 1 ? low : 'word'}` }, text.length === 1 ? text.toUpperCase() : text);
  }
  if (LIGHT.has(text) || DARK.has(text)) {
    return el('span', { class: `piece ${LIGHT.has(text) ? 'light' : 'dark'}`, 'aria-hidden': 'true' });
  }
  if (EMPTY.has(text)) return '';
  return el('span', { class: 'cell-text' }, text);
}

function renderBoard(diagram, legal, last) {
  const board = $('board');
  board.replaceChildren();
  const rows = diagram.rows;
  const d = state.detail;
  board.dataset.plies = state.viewPly === null && catchingUp(d) ? state.shown : d.plies;
  board.dataset.status = catchingUp(d) ? 'live' : d.status;
  board.dataset.board = rows.map((r) => r.join(diagram.text_cells ? ' ' : '')).join('\n');
  board.dataset.view = state.viewPly === null ? 'live' : String(state.viewPly);
  board.classList.toggle('text-cells', diagram.text_cells);
  if (rows.length === 0) { board.hidden = true; return; }
  board.hidden = false;
  const cols = rows[0].length;
  const room = Math.min($('board-wrap').clientWidth || window.innerWidth, 560) - 28;
  const cell = Math.max(18, Math.min(44, Math.floor(room / cols)));
  board.style.setProperty('--cell', `${cell}px`);
  const names = labels(d, diagram);
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
  const lastFrom = last && last.from ? last.from.join(',') : null;
  const lastTo = new Set((last && last.to ? [last.to] : last && last.changed ? last.changed : []).map((c) => c.join(',')));
  // A chain's landings, numbered in order (the last one is the move's end).
  const via = new Map(((last && last.via) || []).map((cell, i) => [cell.join(','), i + 1]));
  const flipped = new Set(((last && last.flipped) || []).map((cell) => cell.join(',')));
  rows.forEach((row, r) => {
    const tr = el('tr', {}, el('th', { scope: 'row' }, names.row[r]));
    row.forEach((text, c) => {
      const key = `${r},${c}`;
      const marked = key === lastFrom ? ', where the last move started'
        : via.has(key) ? `, landing ${via.get(key)} of the last move`
          : lastTo.has(key) ? `, where the last move ended${last.took ? ', taking the piece there' : ''}`
            : flipped.has(key) ? ', turned by the last move' : '';
      const label = `${squareName(names, [r, c])}: ${diagram.text_cells ? (text || 'empty') : cellWord(text)}${marked}`;
      const content = pieceOf(diagram, text);
      const td = el('td', { role: 'gridcell', 'data-cell': key, 'aria-label': label });
      const playable = froms.has(key) || targets.has(key);
      if (legal && state.viewPly === null && (playable || state.picked)) {
        const extra = targets.has(key) ? ` (move ${moveText(d, targets.get(key).name, true)})` : froms.has(key) ? ' (can move)' : '';
        td.append(el('button', { type: 'button', 'aria-label': label + extra, onclick: () => clickCell([r, c]) }, content));
      } else if (content !== '') {
        td.append(content);
      }
      const camp = campOf(d, r, c, rows.length);
      if (camp) td.classList.add(camp);
      if (froms.has(key) && !state.picked) td.classList.add('from');
      if (key === pickedKey) td.classList.add('picked');
      if (targets.has(key)) td.classList.add('target');
      if (key === lastFrom) td.classList.add('last-from');
      if (lastTo.has(key)) td.classList.add('last');
      if (via.has(key)) { td.classList.add('last-via'); td.dataset.step = via.get(key); }
      if (lastTo.has(key) && via.size > 0) td.dataset.step = via.size + 1;
      if (flipped.has(key)) td.classList.add('flipped');
      tr.append(td);
    });
    board.append(tr);
  });
  const foot = el('tr', {}, el('th', {}));
  for (let c = 0; c < cols; c++) foot.append(el('th', { scope: 'col' }, names.col[c]));
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

// The legal move typed as the board's squares ("c13-d12"), if there is one: its name.
function moveOfSquares(d, text) {
  const m = /^([a-z])(\d+)\s*[-–]\s*([a-z])(\d+)$/i.exec(text);
  if (!m || !d || !d.legal) return null;
  const names = labels(d, d.diagram);
  const cell = (col, row) => `${names.row.indexOf(row)},${names.col.indexOf(col.toLowerCase())}`;
  const [from, to] = [cell(m[1], m[2]), cell(m[3], m[4])];
  const move = d.legal.find((l) => l.from && l.to && l.from.join(',') === from && l.to.join(',') === to);
  return move ? move.name : null;
}

function moverName(d, m) {
  if (m.joint) return 'all at once';
  if (m.mover === null) return '';
  return roleName(d, m.mover);
}

// "a, b and c".
function listText(items) {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

// What move `m` was: "c13–e11–g9 (J 2,3 6,7)"; a joint move's each role's, "left: (play
// rock) · right: (play well)".
function playedText(d, m) {
  if (m.joint) return m.joint.map((t, i) => `${d.roles[i]}: ${t}`).join(' · ');
  return moveText(d, m.text, false, m.path);
}

// What the status line says of move `m`: who played what, and what it turned over.
function saidOf(d, m) {
  if (m.joint) {
    return `Ply ${m.ply}: all moved at once: ${m.joint.map((t, i) => `${roleName(d, i)} played ${t}`).join('; ')}. `;
  }
  const marks = marksOf(d, m);
  const names = labels(d, m.diagram);
  const turned = marks.flipped && marks.flipped.length > 0
    ? `, turning ${marks.flipped.length} ${marks.flipped.length === 1 ? 'piece' : 'pieces'} (${listText(marks.flipped.map((c) => squareName(names, c)))})` : '';
  const took = marks.took ? `, taking the piece on ${squareName(names, marks.to)}` : '';
  return `Ply ${m.ply}: ${moverName(d, m) || 'all'} played ${moveText(d, m.text, false, m.path)}${took}${turned}. `;
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
    const line = s ? s.pv.map((p) => moveText(d, p, true)) : [];
    const row = el('tr', { 'data-ply': m.ply, 'data-move': m.text },
      el('td', {}, view), el('td', { class: 'who' }, moverName(d, m)), el('td', { class: 'move' }, playedText(d, m)), el('td', {}, seconds(m.ms)),
      el('td', {}, s ? `${s.depth}` : ''), el('td', {}, scoreText(s)),
      el('td', {}, s ? s.nodes.toLocaleString('en') : ''),
      el('td', {}, s ? s.nodes_per_second.toLocaleString('en') : ''),
      el('td', { class: 'pv', title: line.join(' ') }, pvText(line)));
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

// The engine's view of the game after each of its moves: alpha-beta's score (a proven
// win or loss drawn at the edge), or Monte-Carlo's win rate.
function renderPlot(d) {
  const plot = $('plot');
  plot.replaceChildren();
  const searched = d.moves.filter((m) => m.search);
  // The program's game: its moves are searched by the program, which reports nothing.
  const none = d.source === 'program' || (d.status !== 'live' && searched.length === 0);
  $('plot-section').hidden = none;
  if (none) return;
  const mcts = searched.some((m) => m.search.win_rate !== null);
  const W = 420, H = 170, LEFT = 58, RIGHT = 12, TOP = 12, BOTTOM = 34;
  const proven = searched.some((m) => m.search.proven);
  const points = searched.map((m) => {
    const s = m.search;
    let v = mcts ? Math.round(200 * s.win_rate - 100) : s.score;
    if (s.proven) v = s.proven === 'win' ? Infinity : s.proven === 'loss' ? -Infinity : 0;
    return [m.ply, v];
  });
  const finite = points.map((p) => Math.abs(p[1])).filter((v) => Number.isFinite(v));
  const top = mcts ? 100 : Math.max(100, ...finite);
  // Proven results sit on the edge lines, beyond any score.
  const edge = proven && !mcts ? top * 1.4 : top;
  const maxPly = Math.max(2, d.plies);
  const x = (ply) => LEFT + (ply / maxPly) * (W - LEFT - RIGHT);
  const y = (v) => TOP + (1 - (Math.max(-edge, Math.min(edge, v)) + edge) / (2 * edge)) * (H - TOP - BOTTOM);
  plot.setAttribute('viewBox', `0 0 ${W} ${H}`);
  plot.append(svg('line', { class: 'axis', x1: LEFT, y1: y(0), x2: W - RIGHT, y2: y(0) }));
  plot.append(svg('line', { class: 'axis', x1: LEFT, y1: TOP, x2: LEFT, y2: H - BOTTOM }));
  const label = (text, tx, ty, anchor, extra) => {
    const t = svg('text', { x: tx, y: ty, 'text-anchor': anchor, ...(extra || {}) });
    t.textContent = text;
    plot.append(t);
  };
  const tick = mcts ? ['100%', '50%', '0%'] : [`+${top}`, '0', `−${top}`];
  label(tick[0], LEFT - 5, y(top) + 4, 'end');
  label(tick[1], LEFT - 5, y(0) + 4, 'end');
  label(tick[2], LEFT - 5, y(-top) + 4, 'end');
  if (proven && !mcts) {
    label('won', LEFT - 5, y(edge) + 4, 'end');
    label('lost', LEFT - 5, y(-edge) + 4, 'end');
  }
  label('ply 0', LEFT, H - BOTTOM + 14, 'start');
  label(`ply ${maxPly}`, W - RIGHT, H - BOTTOM + 14, 'end');
  label('ply (moves played)', (LEFT + W - RIGHT) / 2, H - 4, 'middle', { class: 'axis-title' });
  const yTitle = mcts ? 'win rate' : 'evaluation';
  label(yTitle, 12, (TOP + H - BOTTOM) / 2, 'middle', { class: 'axis-title', transform: `rotate(-90 12 ${(TOP + H - BOTTOM) / 2})` });
  if (points.length > 0) {
    plot.append(svg('polyline', { class: 'line', points: points.map(([p, v]) => `${x(p)},${y(v)}`).join(' ') }));
    for (const [p, v] of points) plot.append(svg('circle', { class: 'dot', cx: x(p), cy: y(v), r: 2.5 }));
  }
  const model = MODEL_NAMES[d.model] || d.model;
  const who = d.source === 'controller' ? `our ${model}` : `the ${model}`;
  $('plot-title').textContent = `${capital(who)}'s evaluation, its own view`;
  $('plot-caption').textContent = mcts
    ? `Monte-Carlo search: the chosen move's win rate for ${d.roles[d.us]}, 0–100% (50%: even).`
    : `Alpha-beta search: the score for ${d.roles[d.us]} in the evaluation's units; above 0 it thinks it is ahead.`
      + (proven ? ' A proven win or loss is drawn on the top or bottom line.' : '');
  plot.setAttribute('aria-label', points.length === 0 ? 'No search scores yet'
    : `${$('plot-title').textContent} after each of its ${points.length} moves; the last is ${scoreText(searched[searched.length - 1].search)}`);
}

function viewAt(ply) {
  const d = state.detail;
  state.viewPly = ply === d.plies ? null : ply;
  state.picked = null;
  renderDetail(d);
}

// Whose turn it is, said to the person: 'you', 'engine', 'program', 'match' (a
// controller's), 'over' or 'lost'.
function turnOf(d) {
  if (state.lost) return 'lost';
  if (d.status !== 'live' && !catchingUp(d)) return 'over';
  if (catchingUp(d)) return 'replay';
  if (d.source === 'controller') return 'match';
  if (d.legal) return 'you';
  return d.source === 'page' ? 'engine' : 'program';
}

function statusText(d) {
  const last = catchingUp(d) ? moveAt(d, state.shown) : d.moves[d.moves.length - 1];
  const said = last ? saidOf(d, last) : '';
  const turn = turnOf(d);
  const seat = d.plies % 2;
  switch (turn) {
    case 'lost': return `${said}The connection to the server is lost: it has stopped (or the program quit). This is the last position it sent.`;
    case 'over': return `${said}Game over: ${outcomeText(d)}.`;
    case 'replay': return said;
    case 'you': return `${said}${capital(d.roles[seat])} (you) to move: your move.`;
    case 'engine': return `${said}${roleName(d, seat)} is thinking…`;
    case 'program': return `${said}${capital(d.roles[seat])} to move: the program plays it, or it waits for a command typed there.`;
    default: {
      // A controller's match: the roles with a move to make now.
      const waiting = d.to_move || [];
      if (waiting.length > 1) {
        const who = waiting.length === d.roles.length ? `All ${d.roles.length} roles move at once` : `${waiting.length} roles move at once`;
        return `${said}${who}: waiting for the moves of ${listText(waiting.map((i) => roleName(d, i)))}.`;
      }
      if (waiting.length === 1) return `${said}${roleName(d, waiting[0])} to move.`;
      return `${said}Waiting for the controller's next message.`;
    }
  }
}

// Who plays each side, and how: for the line under the title.
function playersText(d) {
  const how = (i) => {
    const p = playerOf(d, i);
    if (p === 'you') return d.source === 'program' ? 'you (typed in the program, or here)' : 'you';
    if (p === 'engine') return `the engine (alpha-beta, ${seconds(d.play_clock_ms)} a move)`;
    if (p === 'program') return 'the program (its own search)';
    if (p === 'us') return `this player (the ${MODEL_PLAYS[d.model] || 'engine'})`;
    return 'the controller\'s other player';
  };
  return d.roles.map((r, i) => `${capital(r)}: ${how(i)}`).join(' · ');
}

function renderDetail(previous) {
  const d = state.detail;
  if (!d) return;
  $('match-title').textContent = `#${d.id} ${d.game} ${d.size}`.trim();
  const clocks = d.source === 'controller' ? ` · start clock ${seconds(d.start_clock_ms)}, play clock ${seconds(d.play_clock_ms)}` : '';
  $('match-info').textContent = `${playersText(d)}${clocks}`;
  $('match-id').textContent = d.source === 'controller' ? `Match id: ${d.match_id}` : '';
  const viewing = state.viewPly === null ? null : d.moves.find((m) => m.ply === state.viewPly);
  if (state.viewPly !== null && !viewing) state.viewPly = null;
  const live = catchingUp(d) ? moveAt(d, state.shown) : null;
  const diagram = viewing ? viewing.diagram : live ? live.diagram : d.diagram;
  const lastMove = viewing || live || d.moves[d.moves.length - 1];
  const last = lastMove ? marksOf(d, lastMove) : null;
  const playable = state.viewPly === null && !live && !state.lost ? d.legal : null;
  renderBoard(diagram, playable, last);
  // The game's own line on who is to move is the status line's job once the game is over.
  const over = d.status !== 'live' && state.viewPly === null && !live;
  $('notes').textContent = diagram.notes.filter((n) => !(over && /to move|next move/i.test(n))).join('\n');
  $('live-button').hidden = state.viewPly === null;
  const playing = d.source !== 'controller' && d.status === 'live' && !state.lost;
  $('play-controls').hidden = !playing;
  $('resign').disabled = !playing;
  $('resign').hidden = d.source !== 'page';
  // The box takes a move as the board's squares or in the game's notation.
  const squares = (m) => (m.from && m.to ? moveText(d, m.name, true).replace('–', '-') : m.name);
  const list = $('legal-moves');
  list.replaceChildren(...[...new Set((d.legal || []).map(squares))].map((name) => el('option', { value: name })));
  renderMoves(d);
  renderPlot(d);
  const offered = state.offers.some((o) => o.name === d.game);
  $('new-game-button').hidden = !offered || d.source === 'program';
  $('new-game-button').textContent = `New game of ${d.game} against the engine`;
  const text = statusText(d);
  $('board').dataset.turn = turnOf(d);
  if (!previous || previous.version !== d.version || $('status').textContent !== text) $('status').textContent = text;
}

// The cells that differ between two diagrams; none when more than `most` do (or a
// diagram is missing).
function changedCells(a, b, most) {
  if (!b || !a || a.rows.length !== b.rows.length) return [];
  const out = [];
  b.rows.forEach((row, r) => row.forEach((t, c) => { if (a.rows[r] && a.rows[r][c] !== t) out.push([r, c]); }));
  return out.length <= most ? out : [];
}

// What the board marks of move `m`: where it started and ended, a chain's landings
// (`via`) and the pieces it turned (Ataxx's: every other cell that changed); for a move
// the page cannot read, the cells that changed.
function marksOf(d, m) {
  const before = d.moves.find((b) => b.ply === m.ply - 1) || null;
  const cells = moveCells(d, m.text, m.diagram.rows.length);
  if (!cells) return { changed: changedCells(before ? before.diagram : null, m.diagram, 4) };
  const path = m.path && m.path.length > 2 ? m.path : [cells.from, cells.to];
  const moved = new Set(path.map((c) => c.join(',')));
  const flipped = changedCells(before ? before.diagram : null, m.diagram, Infinity)
    .filter((c) => !moved.has(c.join(',')));
  // A piece taken where the mover landed (Breakthrough, Lines of Action).
  const was = before ? before.diagram.rows[cells.to[0]][cells.to[1]] : '';
  const took = was !== undefined && !EMPTY.has(was) && was !== m.diagram.rows[cells.to[0]][cells.to[1]];
  return { from: cells.from, to: cells.to, via: path.slice(1, -1), flipped, took };
}

// ---- a new game ----

function fillOffer() {
  const offer = state.offers.find((o) => o.name === $('game').value);
  if (!offer) return;
  $('size').value = offer.default_size;
  $('size').closest('label').hidden = !/[-,]|WIDTH/.test(offer.sizes);
  $('sizes').textContent = `${offer.about}. Sizes: ${offer.sizes}.`;
  $('variant').replaceChildren(...offer.variants.map((v) => el('option', { value: v }, v)));
  // One set of rules: nothing to choose.
  $('variant').closest('label').hidden = offer.variants.length < 2;
  $('side').replaceChildren(...offer.sides.map((s) => el('option', { value: s }, s)));
}

async function loadOffers() {
  try {
    state.offers = (await api('/api/games')).games;
  } catch (e) { $('form-error').textContent = e.message; return; }
  $('game').replaceChildren(...state.offers.map((o) => el('option', { value: o.name }, o.name)));
  fillOffer();
  if (state.detail) renderDetail(state.detail);
}

async function startGame(event) {
  if (event) event.preventDefault();
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
    $('move-error').textContent = e.message;
  }
}

// "New game" beside a match: a page game of the same game and size, the person on the
// side they played (or the side the form has, for a controller's match).
function newGameLike(d) {
  $('game').value = d.game;
  fillOffer();
  if (d.size) $('size').value = d.size;
  if (d.source === 'page') $('side').value = d.roles[1 - d.us];
  startGame(null);
}

// ---- live updates ----

function connect() {
  const events = new EventSource('/api/events');
  events.addEventListener('hello', () => {
    $('conn').textContent = 'live';
    state.lost = false;
    loadList();
    loadDetail();
  });
  events.addEventListener('change', (e) => {
    const change = JSON.parse(e.data);
    scheduleList();
    if (change.id === state.selected && (!state.detail || state.detail.version < change.version)) loadDetail();
  });
  events.addEventListener('lagged', () => { loadList(); loadDetail(); });
  events.onerror = () => {
    $('conn').textContent = 'disconnected: retrying…';
    state.lost = true;
    if (state.detail) renderDetail(null);
  };
}

function openFromHash() {
  const m = /^#match=(\d+)$/.exec(location.hash);
  if (m && Number(m[1]) !== state.selected) select(Number(m[1]));
}

function init() {
  $('new-game').addEventListener('submit', startGame);
  $('game').addEventListener('change', fillOffer);
  $('move-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('move-input').value.trim();
    if (text) sendMove(moveOfSquares(state.detail, text) || text);
  });
  $('resign').addEventListener('click', async () => {
    try { await post(`/api/games/${state.detail.id}/resign`, {}); } catch (e) { $('move-error').textContent = e.message; }
    loadDetail();
  });
  $('new-game-button').addEventListener('click', () => { if (state.detail) newGameLike(state.detail); });
  $('live-button').addEventListener('click', () => viewAt(state.detail.plies));
  window.addEventListener('hashchange', openFromHash);
  let resized = null;
  window.addEventListener('resize', () => {
    clearTimeout(resized);
    resized = setTimeout(() => { if (state.detail) renderDetail(state.detail); }, 100);
  });
  openFromHash();
  loadOffers();
  loadList();
  connect();
}

init();
