// Cohort dashboard: plain JavaScript on the lead's own API (same origin), no libraries, no build step.
// One EventSource per team: the browser resumes it with Last-Event-ID after a drop; when it gives up (HTTP error),
// the page reopens it with ?since=<last seq>. Panels reload from the API after events that change them.
'use strict';

const $ = (id) => document.getElementById(id);
const EVENT_TYPES = ['prompt_received', 'turn_started', 'assistant_message', 'tool_call_started', 'tool_call_finished',
  'turn_completed', 'approval_requested', 'approval_resolved', 'task_created', 'task_claimed', 'task_completed',
  'teammate_spawned', 'teammate_phase', 'message_sent', 'protocol_updated', 'compacted', 'memory_updated', 'cron_fired',
  'background_started', 'background_finished', 'todo_updated', 'model_retry', 'error', 'budget_warning',
  'budget_exceeded', 'message'];
const FEED_MAX = 500;
const state = { team: null, source: null, lastSeq: 0, agents: new Set(), reloadTimer: null, retryTimer: null, agentUsage: {} };

function api(path, opts = {}) {
  const init = { credentials: 'same-origin', headers: {}, ...opts };
  if (opts.body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(opts.body);
  }
  return fetch(path, init).then(async (r) => {
    const text = await r.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = null; } // e.g. an HTML 404 page
    if (r.status === 401 && path !== '/api/v1/session') {
      showLogin('Your session has ended: log in again.');
      throw new Error('unauthorized');
    }
    if (!r.ok) {
      const err = new Error((json && (json.detail || json.title)) || ('HTTP ' + r.status));
      err.status = r.status;
      throw err;
    }
    return json;
  });
}
const teamPath = (rest) => '/api/v1/teams/' + encodeURIComponent(state.team) + rest;

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function preview(value, max = 400) {
  if (value === undefined || value === null) return '';
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return s.length > max ? s.slice(0, max) + ' …' : s;
}

// ---- login
function showLogin(message) {
  closeStream();
  $('app').hidden = true;
  $('logout').hidden = true;
  $('login-view').hidden = false;
  $('login-error').textContent = message || '';
  $('login-token').focus();
}

async function login(ev) {
  ev.preventDefault();
  $('login-error').textContent = '';
  try {
    await api('/api/v1/session', { method: 'POST', body: { token: $('login-token').value } });
    $('login-token').value = '';
    await start(true);
  } catch (e) {
    if (e.message !== 'unauthorized') $('login-error').textContent = 'Login failed: ' + e.message;
  }
}

// A one-time login link (`cohort up`, `cohort dashboard`): <lead>/#code=<code>[&team=<id>]. The fragment never
// reaches the server's logs; the code is first taken out of the URL (replaceState: not in the tab's back/forward
// history, not bookmarked), then redeemed once for the session cookie.
function takeLoginCode() {
  const params = new URLSearchParams(location.hash.slice(1));
  const code = params.get('code');
  if (code === null) return null;
  params.delete('code');
  const rest = params.toString();
  history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
  return code;
}

async function boot() {
  const code = takeLoginCode();
  if (code !== null) {
    try {
      await api('/api/v1/session', { method: 'POST', body: { code } });
    } catch (e) {
      showLogin('Login failed: ' + e.message);
      return;
    }
  }
  await start(code !== null);
}

async function logout() {
  await api('/api/v1/session', { method: 'DELETE' }).catch(() => {});
  showLogin('Logged out.');
}

// ---- start and team picker
async function start(loggedIn) {
  const s = await api('/api/v1/session');
  if (s.required && !s.authenticated) {
    showLogin('');
    return;
  }
  $('login-view').hidden = true;
  $('app').hidden = false;
  $('logout').hidden = !s.required;
  const teams = await api('/api/v1/teams');
  const picker = $('team-picker');
  picker.replaceChildren(...teams.map((t) => el('option', { value: t.id, text: t.id })));
  const wanted = new URLSearchParams(location.hash.slice(1)).get('team');
  const chosen = teams.some((t) => t.id === wanted) ? wanted : (teams.some((t) => t.id === 'default') ? 'default' : teams[0]?.id);
  if (chosen) {
    picker.value = chosen;
    selectTeam(chosen);
  }
  if (loggedIn) $('prompt-text').focus();
}

function selectTeam(team) {
  state.team = team;
  state.lastSeq = 0;
  state.agents = new Set();
  state.agentUsage = {};
  history.replaceState(null, '', '#team=' + encodeURIComponent(team));
  $('feed').replaceChildren();
  $('agent-filter').replaceChildren(el('option', { value: '', text: 'all agents' }));
  openStream();
  reloadAll();
}

// ---- the live event feed
function closeStream() {
  if (state.source) state.source.close();
  state.source = null;
  clearTimeout(state.retryTimer);
}

function openStream() {
  closeStream();
  const url = teamPath('/events') + (state.lastSeq > 0 ? '?since=' + state.lastSeq : '');
  const source = new EventSource(url, { withCredentials: true });
  state.source = source;
  const handler = (m) => onEvent(m);
  EVENT_TYPES.forEach((t) => source.addEventListener(t, handler));
  source.onopen = () => setConn('live');
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      // the browser gave up (e.g. 401 or 5xx): check the session, then reopen from the last seq we showed
      setConn('disconnected, retrying…');
      api('/api/v1/session').then((s) => {
        if (s.required && !s.authenticated) showLogin('Your session has ended: log in again.');
        else state.retryTimer = setTimeout(openStream, 2000);
      }).catch(() => { state.retryTimer = setTimeout(openStream, 5000); });
    } else {
      setConn('reconnecting…');
    }
  };
}

function setConn(text) {
  $('conn').textContent = 'events: ' + text;
}

function onEvent(m) {
  let e;
  try { e = JSON.parse(m.data); } catch { return; }
  if (!e || typeof e.seq !== 'number' || e.seq <= state.lastSeq) return; // exactly once, in order
  state.lastSeq = e.seq;
  addAgent(e.agent || 'lead');
  if (e.type === 'turn_completed' && e.data && e.data.agentUsage) state.agentUsage[e.agent || 'lead'] = e.data.agentUsage;
  const li = renderEvent(e);
  li.hidden = !matchesFilter(li);
  const feed = $('feed');
  feed.append(li);
  while (feed.children.length > FEED_MAX) feed.firstElementChild.remove();
  feed.scrollTop = feed.scrollHeight;
  scheduleReload(e.type);
}

function renderEvent(e) {
  const d = e.data || {};
  const agent = e.agent || 'lead';
  let kind = e.type.replace(/_/g, ' ');
  let body = null;
  let detail = null;
  switch (e.type) {
    case 'assistant_message': kind = 'says'; body = d.text || ''; break;
    case 'tool_call_started': kind = '→ ' + (d.tool || '?'); detail = preview(d.args); break;
    case 'tool_call_finished':
      kind = (d.error ? '✗ ' : '← ') + (d.tool || '?') + (d.durationMs !== undefined ? ' (' + d.durationMs + ' ms)' : '');
      detail = preview(d.preview !== undefined ? d.preview : d.result, 1500); break;
    case 'turn_completed':
      body = [d.status, d.reason !== d.status ? d.reason : null].filter(Boolean).join(' · ')
        + (d.usage ? ' · ' + ((d.usage.inputTokens || 0) + (d.usage.outputTokens || 0)) + ' tokens' : ''); break;
    case 'turn_started': body = d.source || ''; break;
    case 'approval_requested': kind = '? approval needed'; body = (d.tool || '') + ' ' + preview(d.args); break;
    case 'approval_resolved': body = (d.status || '') + (d.answer ? ' · ' + d.answer : ''); break;
    case 'task_created': case 'task_claimed': case 'task_completed':
      body = (d.id || '') + ' ' + (d.subject || '') + (d.owner ? ' · ' + d.owner : ''); break;
    case 'model_retry': body = preview(d); break;
    case 'compacted': body = (d.layer || '') + ' ' + (d.tokensBefore || '') + ' → ' + (d.tokensAfter || '') + ' tokens'; break;
    case 'error': body = d.message || preview(d); break;
    case 'teammate_spawned':
      body = (d.restarted ? 'restarted ' : '') + (d.name || '') + (d.role ? ' as ' + d.role : '')
        + (d.planMode ? ' · plan mode' : '') + (d.replica ? ' · on ' + d.replica : ''); break;
    case 'teammate_phase':
      kind = 'phase';
      body = (d.phase || '?') + (d.currentTask ? ' · ' + d.currentTask : '') + (d.reason ? ' · ' + d.reason : '')
        + (d.replica ? ' · on ' + d.replica : ''); break;
    case 'message_sent': body = (d.to ? 'to ' + d.to + ': ' : '') + preview(d.content || d, 300); break;
    default: body = preview(d, 300);
  }
  return el('li', { class: 't-' + e.type, 'data-agent': agent, 'data-type': e.type, 'data-seq': e.seq },
    el('span', { class: 'who', text: agent }), el('span', { class: 'kind', text: kind }),
    body ? el('span', { class: 'body', text: body }) : null,
    detail ? el('pre', { text: detail }) : null);
}

function addAgent(name) {
  if (state.agents.has(name)) return;
  state.agents.add(name);
  $('agent-filter').append(el('option', { value: name, text: name }));
}

function matchesFilter(li) {
  const f = $('agent-filter').value;
  return !f || li.dataset.agent === f;
}

function applyFilter() {
  for (const li of $('feed').children) li.hidden = !matchesFilter(li);
}

// ---- panels
const RELOADS = {
  board: ['task_created', 'task_claimed', 'task_completed', 'turn_completed'],
  agents: ['turn_started', 'turn_completed', 'teammate_spawned', 'teammate_phase', 'task_claimed', 'task_completed'],
  approvals: ['approval_requested', 'approval_resolved', 'protocol_updated', 'turn_completed'],
  usage: ['turn_completed'],
  crons: ['cron_fired', 'turn_completed'],
  // every turn reads the rules again (the settings file may have changed; a bad one is an error event)
  permissions: ['turn_started', 'error'],
};
const pending = new Set();

function scheduleReload(type) {
  for (const [panel, types] of Object.entries(RELOADS)) if (types.includes(type)) pending.add(panel);
  if (pending.size && !state.reloadTimer) {
    state.reloadTimer = setTimeout(() => {
      state.reloadTimer = null;
      const panels = [...pending];
      pending.clear();
      panels.forEach((p) => LOADERS[p]());
    }, 150);
  }
}

function reloadAll() {
  Object.values(LOADERS).forEach((f) => f());
}

async function loadBoard() {
  const tasks = await api(teamPath('/tasks')).catch(() => null);
  if (!tasks) return;
  const cols = { pending: [], in_progress: [], completed: [] };
  for (const t of tasks) (cols[t.status] || cols.pending).push(t);
  for (const [status, list] of Object.entries(cols)) {
    $('col-' + status).replaceChildren(...list.map((t) => el('li', { class: 'task', 'data-task-id': t.id, 'data-status': t.status },
      el('strong', { text: t.id + ' ' }), el('span', { text: t.subject }),
      el('div', { class: 'meta', text: [t.owner ? 'owner ' + t.owner : 'unowned',
        t.blockedBy && t.blockedBy.length ? 'blocked by ' + t.blockedBy.join(', ')
          + (t.blockers && t.blockers.length ? ' (waiting on ' + t.blockers.join(', ') + ')' : ' (met)') : null,
        t.worktree ? 'worktree ' + t.worktree : null].filter(Boolean).join(' · ') }))));
  }
}

const money = (v) => (typeof v === 'number' ? '$' + v.toFixed(4) : '–');
// A cost whose calls had no known price is unknown, never $0: a usage row says so with priceKnown (and unpricedCalls of
// modelCalls), an agent's usage with unpricedCalls of calls.
const cost = (u) => {
  if (!u || u.costUsd === undefined) return '–';
  const unpriced = u.unpricedCalls ?? (u.priceKnown === false ? 1 : 0);
  if (!unpriced) return money(u.costUsd);
  const calls = u.modelCalls ?? u.calls ?? 0;
  return unpriced < calls && u.costUsd > 0 ? money(u.costUsd) + ' + unknown' : 'unknown price';
};

async function loadAgents() {
  const agents = await api(teamPath('/agents')).catch(() => null);
  if (!agents) return;
  agents.forEach((a) => addAgent(a.name));
  $('agents').tBodies[0].replaceChildren(...agents.map((a) => {
    // the agent's life-time usage: what its row reports (a teammate's last report), else its last turn_completed's agentUsage
    const u = (a.usage && Object.keys(a.usage).length ? a.usage : null) || state.agentUsage[a.name] || null;
    const tokens = u ? (u.inputTokens ?? u.promptTokens ?? 0) + (u.outputTokens ?? u.completionTokens ?? 0) : null;
    return el('tr', { 'data-agent': a.name }, el('th', { scope: 'row', text: a.name }), el('td', { text: a.role || (a.name === 'lead' ? 'lead' : '') }),
      el('td', { text: a.status || '' }), el('td', { text: a.currentTask || '' }),
      el('td', { text: tokens === null ? '–' : String(tokens) }), el('td', { text: cost(u) }));
  }));
}

async function loadUsage() {
  try {
    const u = await api(teamPath('/usage?by=agent'));
    const head = el('tr', {}, ...['Agent', 'Calls', 'Prompt', 'Completion', 'Cached', 'Cache write', 'Cost'].map((h) => el('th', { scope: 'col', text: h })));
    const rows = (u.rows || []).map((r) => el('tr', {}, el('th', { scope: 'row', text: r.agent || r.key }),
      ...[r.modelCalls, r.promptTokens, r.completionTokens, r.cachedTokens, r.cacheWriteTokens].map((n) => el('td', { text: String(n ?? 0) })),
      el('td', { text: cost(r) })));
    const unpriced = (u.total && u.total.unpricedModels) || [];
    const note = unpriced.length ? [el('p', { class: 'muted', text: 'Unknown price: no price for ' + unpriced.join(', ')
      + ' (set cohort.engine.prices."<model>".*); their calls are not in the cost.' })] : [];
    $('usage').replaceChildren(el('table', {}, el('thead', {}, head), el('tbody', {}, ...rows)), ...note);
  } catch (e) {
    if (e.message === 'unauthorized') return;
    $('usage').replaceChildren(el('p', { class: 'muted', text: e.status === 404 ? 'Usage is not available on this lead-service.' : 'Usage could not be loaded: ' + e.message }));
  }
}

// Loads overlap (every event may start one): an answer older than one already shown is dropped, so a late answer
// read before a plan arrived cannot take the plan (and the reason being typed into it) off the page.
// Each list is numbered when its own request is sent: the plans are read after the approvals, so a load that started
// first may ask for the plans last.
let approvalsLoads = 0;
let approvalsShown = 0;
let plansLoads = 0;
let plansShown = 0;

async function loadApprovals() {
  const mine = ++approvalsLoads;
  const list = await api(teamPath('/approvals?status=pending')).catch(() => null);
  if (list && mine > approvalsShown) {
    approvalsShown = mine;
    keyed($('approvals'), list, renderApproval, 'approvalId', 'Nothing waits for you.');
  }
  const minePlans = ++plansLoads;
  const plans = await api(teamPath('/protocols?status=pending')).catch(() => null);
  if (plans && minePlans > plansShown) {
    plansShown = minePlans;
    keyed($('plans'), plans.filter((p) => p.type === 'plan_approval'), renderPlan, 'protocolId', 'No plan waits for review.');
  }
}

// The reasons being typed, by approval or plan id: a box drawn again (a reload, another team's view and back) keeps it.
const drafts = new Map();

// Keeps the items still pending as they are (a reason being typed survives a reload), adds new ones, drops the rest.
function keyed(list, items, render, key, empty) {
  const have = new Map([...list.children].filter((li) => li.dataset[key]).map((li) => [li.dataset[key], li]));
  list.replaceChildren(...(items.length ? items.map((it) => have.get(it.id) || render(it))
    : [el('li', { class: 'muted', text: empty })]));
}

function decisionBox(id, what, send) {
  const reasonId = 'reason-' + id;
  const status = el('p', { role: 'status' });
  const decide = (approve) => async () => {
    try {
      await send(approve, $(reasonId).value || drafts.get(id) || undefined);
      drafts.delete(id);
      status.textContent = approve ? 'approved' : 'denied';
      loadApprovals();
    } catch (e) {
      status.textContent = 'failed: ' + e.message;
    }
  };
  const reason = el('input', { id: reasonId });
  reason.value = drafts.get(id) || '';
  reason.addEventListener('input', () => drafts.set(id, reason.value));
  return [el('label', { for: reasonId, text: 'Reason (optional)' }), reason,
    el('div', { class: 'row' },
      el('button', { type: 'button', class: 'approve', 'data-id': id, 'aria-label': 'Approve ' + what, onclick: decide(true), text: 'Approve' }),
      el('button', { type: 'button', class: 'deny danger', 'data-id': id, 'aria-label': 'Deny ' + what, onclick: decide(false), text: 'Deny' })),
    status];
}

function renderApproval(a) {
  const what = (a.tool || '') + ' ' + preview(a.args, 200);
  return el('li', { class: 'approval', 'data-approval-id': a.id },
    el('div', {}, el('strong', { text: a.agent + ' asks: ' }), el('code', { text: what })),
    a.reason ? el('div', { class: 'muted', text: a.reason }) : null,
    ...decisionBox(a.id, what, (approve, reason) => api(teamPath('/approvals/' + encodeURIComponent(a.id)),
      { method: 'POST', body: { approve, reason } })));
}

function renderPlan(p) {
  const what = 'plan of ' + (p.sender || '?');
  const payload = p.payload || {};
  return el('li', { class: 'approval', 'data-protocol-id': p.id },
    el('div', {}, el('strong', { text: what + ': ' })), el('pre', { text: preview(payload.plan || payload.content || payload, 1500) }),
    ...decisionBox(p.id, what, (approve, feedback) => api(teamPath('/protocols/' + encodeURIComponent(p.id)),
      { method: 'POST', body: { approve, feedback } })));
}

async function loadCrons() {
  try {
    const jobs = await api(teamPath('/crons'));
    $('crons').replaceChildren(...(jobs.length ? jobs.map((j) => el('li', { 'data-cron-id': j.id },
      el('code', { text: j.cron }), ' ', el('span', { text: preview(j.prompt, 120) }),
      el('span', { class: 'muted', text: ' · next ' + (j.nextFireAt || '–') + (j.recurring ? '' : ' · once') + ' ' }),
      el('button', { type: 'button', class: 'secondary', 'aria-label': 'Remove cron job ' + j.id, text: 'Remove',
        onclick: async () => {
          try { await api(teamPath('/crons/' + encodeURIComponent(j.id)), { method: 'DELETE' }); loadCrons(); } catch (e) { $('cron-status').textContent = 'failed: ' + e.message; }
        } }))) : [el('li', { class: 'muted', text: 'No cron jobs.' })]));
  } catch (e) {
    if (e.message !== 'unauthorized') $('crons').replaceChildren(el('li', { class: 'muted', text: 'Cron jobs are not available: ' + e.message }));
  }
}

async function addCron(ev) {
  ev.preventDefault();
  try {
    const j = await api(teamPath('/crons'), { method: 'POST', body: { cron: $('cron-expr').value, prompt: $('cron-prompt').value, recurring: $('cron-recurring').checked } });
    $('cron-status').textContent = 'added ' + j.id;
    $('cron-expr').value = '';
    $('cron-prompt').value = '';
    loadCrons();
  } catch (e) {
    $('cron-status').textContent = 'failed: ' + e.message;
  }
}

// The team's permission rules: its own (the API's) and the workspace settings file's, deny first as the gate decides.
async function loadPermissions() {
  try {
    const p = await api(teamPath('/permissions'));
    const file = p.settingsFile || {};
    const rows = [];
    for (const kind of ['deny', 'ask', 'allow']) {
      for (const r of p[kind] || []) rows.push([kind, r, 'team (API)']);
      for (const r of file[kind] || []) rows.push([kind, r, file.path]);
    }
    const head = el('tr', {}, ...['Decision', 'Rule', 'From'].map((h) => el('th', { scope: 'col', text: h })));
    const body = rows.map(([kind, rule, from]) => el('tr', { 'data-rule-kind': kind },
      el('td', { text: kind }), el('td', {}, el('code', { text: rule })), el('td', { text: from })));
    $('permissions').replaceChildren(
      file.error ? el('p', { class: 'error', role: 'alert', text: file.path + ': ' + file.error }) : '',
      rows.length ? el('table', {}, el('thead', {}, head), el('tbody', {}, ...body))
        : el('p', { class: 'muted', text: 'No rules: the permission mode alone decides.' }),
      el('p', { class: 'muted', text: 'Deny wins over ask, ask over allow. Change the team\'s rules with'
        + ' `cohort team permissions --set …`; .cohort/settings.json adds its own.' }));
  } catch (e) {
    if (e.message !== 'unauthorized') $('permissions').replaceChildren(el('p', { class: 'muted', text: 'Permission rules could not be loaded: ' + e.message }));
  }
}

const LOADERS = { board: loadBoard, agents: loadAgents, approvals: loadApprovals, usage: loadUsage, crons: loadCrons,
  permissions: loadPermissions };

// ---- prompt and interrupt
async function sendPrompt(ev) {
  ev.preventDefault();
  const text = $('prompt-text').value.trim();
  if (!text) return;
  try {
    const r = await api(teamPath('/prompts'), { method: 'POST', body: { text } });
    $('prompt-status').textContent = 'sent (' + r.id + ')';
    $('prompt-text').value = '';
  } catch (e) {
    $('prompt-status').textContent = 'not sent: ' + e.message;
  }
}

async function interrupt() {
  try {
    await api(teamPath('/agents/lead/interrupt'), { method: 'POST', body: {} });
    $('prompt-status').textContent = 'interrupt sent';
  } catch (e) {
    $('prompt-status').textContent = 'interrupt failed: ' + e.message;
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('login-form').addEventListener('submit', login);
  $('logout').addEventListener('click', logout);
  $('team-picker').addEventListener('change', (e) => selectTeam(e.target.value));
  $('agent-filter').addEventListener('change', applyFilter);
  $('prompt-form').addEventListener('submit', sendPrompt);
  $('interrupt').addEventListener('click', interrupt);
  $('cron-form').addEventListener('submit', addCron);
  boot().catch((e) => { if (e.message !== 'unauthorized') setConn('error: ' + e.message); });
  // a login link pasted into a tab that shows the page already changes only the fragment: no reload, so redeem it here
  window.addEventListener('hashchange', () => {
    if (new URLSearchParams(location.hash.slice(1)).has('code')) {
      boot().catch((e) => { if (e.message !== 'unauthorized') setConn('error: ' + e.message); });
    }
  });
});
