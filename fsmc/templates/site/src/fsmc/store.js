// The site's reactive store: the FSM state, what the UI shows for it, and how UI events become moves.
// Generic for every site; everything spec-specific comes from runtime.js (compiled) and site.js (decided).
import { reactive, shallowRef, computed } from 'vue'
import { ACTIONS, PAGES, VIEWS } from './runtime.js'
import { BY_PAGE, enabled, fromJson, initial, isEnabled, toJson } from './machine.js'
import { _disp, _eq, _fmt } from './lib.js'
import { cap, rowTitle } from './format.js'
import { LAYOUT, SITE } from '../site.js'
import { TABLES } from '../data.js'

const STORAGE_KEY = `fsmc:${SITE.name}:state`
const SKIP = new Set(['wait', 'scroll_until_visible'])

function restore() {
  try {
    const raw = window.sessionStorage.getItem(STORAGE_KEY)
    if (raw) return fromJson(JSON.parse(raw))
  } catch (err) { /* a stale or foreign value: start over */ }
  return initial()
}

export const state = shallowRef(restore())
// What the UI holds beside the FSM state: typed text, picked options, open menus, a calendar's month, form
// errors. None of it is state: a move clears it, and the harness never reports it.
export const ui = reactive({ inputs: {}, selects: {}, open: {}, toast: '', toastSeq: 0, carousel: {}, month: {},
  errors: {}, dragging: null, hovering: null })

function persist() {
  try { window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(toJson(state.value))) } catch (err) { /* private mode */ }
}

export function syncUrl() {
  // The URL shows the page; it never drives the FSM (only moves change the page).
  // A page named as code (REPOSITORIES_LIST) reads as a path does: #/repositories-list.
  const want = `#/${PAGES[state.value[0]].toLowerCase().replace(/[_\s]+/g, '-')}`
  if (window.location.hash !== want) window.history.replaceState(null, '', want)
}

function setState(next, { clearUi } = { clearUi: false }) {
  const pageChanged = next[0] !== state.value[0]
  state.value = next
  if (pageChanged || clearUi) {
    ui.inputs = {}
    ui.selects = {}
    ui.carousel = {}
    ui.open = {}
    ui.month = {}
    ui.errors = {}
    window.scrollTo(0, 0)
  }
  if (pageChanged) ui.hovering = null  // the pointer may still rest on the element: no second hover on this page
  persist()
  syncUrl()
}

function commit(mv) {
  // Every move clears what the UI held (typed text, open menus, a carousel's slide, the scroll position):
  // once settled, the page shows a function of the FSM state alone, however the state was reached. That is
  // what lets replay reuse one screenshot per state (fsmc/replay/engine.py).
  const label = mv.action.label ? mv.action.label(state.value, mv.args) : ''
  setState(mv.action.step(state.value, mv.args), { clearUi: true })
  if (label) { ui.toast = label; ui.toastSeq += 1 }
}

function liveOps(action) {
  return action.gui.filter((op) => !SKIP.has(op.op))
}

function commitMatches(op, kind, testid, value, s, args) {
  if (op.sel === null || op.sel(s, args) !== testid) return false
  if (op.op === 'click' || op.op === 'repeat_click') return kind === 'click'
  if (op.op === 'hover') return kind === 'hover'
  if (op.op === 'press') return kind === 'press' && op.text(s, args) === value
  if (op.op === 'select') return kind === 'select' && op.text(s, args) === value
  if (op.op === 'type') return kind === 'type' && op.text(s, args) === value
  if (op.op === 'drag') return kind === 'drop' && op.text(s, args) === value
  return false
}

function guardsHold(ops, s, args) {
  // Text typed and options picked earlier in the procedure must be what the move's parameters say.
  for (const op of ops) {
    if (op.op === 'type' && (ui.inputs[op.sel(s, args)] ?? '') !== op.text(s, args)) return false
    if (op.op === 'select' && (ui.selects[op.sel(s, args)] ?? null) !== op.text(s, args)) return false
  }
  return true
}

// A UI event on an element: the first enabled move (canonical order) whose procedure ends with this
// event on this element, and whose earlier typed text and picked options match, is executed.
export function fire(kind, testid, value = null) {
  const s = state.value
  let refused = null
  for (const mv of enabled(s)) {
    const ops = liveOps(mv.action)
    if (!ops.length) continue
    if (!commitMatches(ops[ops.length - 1], kind, testid, value, s, mv.args)) continue
    if (!guardsHold(ops.slice(0, -1), s, mv.args)) { refused = refused || mv; continue }
    commit(mv)
    return true
  }
  if (refused && kind === 'click') validate(testid, refused, s)
  return false
}

function validate(testid, mv, s) {
  // A form submitted with fields that match no move: say so, as a site's validation would; nothing changes.
  const fields = liveOps(mv.action).slice(0, -1).filter((op) => op.op === 'type')
  if (!fields.length) return
  const empty = fields.some((op) => !(ui.inputs[op.sel(s, mv.args)] ?? ''))
  ui.errors[testid] = empty ? 'Please fill in every field.' : 'Those details do not match our records. Please check and try again.'
}

// Hovering is a real pointer movement over the element: a layout change that slides an element under a
// resting pointer (Chromium then sends mouseenter but no mousemove) must not count as hovering it.
export function hoverMove(testid) {
  if (ui.hovering === testid) return
  ui.hovering = testid
  fire('hover', testid)
}

export function hoverLeave(testid) {
  if (ui.hovering === testid) ui.hovering = null
}

export function toggleOpen(testid) {
  ui.open[testid] = !ui.open[testid]
  ui.month = {}
  fire('click', testid)
}

export function closeMenus() {
  ui.open = {}
  ui.month = {}
}

export function typeInto(testid, text) {
  ui.inputs[testid] = text
  ui.errors = {}
  fire('type', testid, text)
}

export function pick(testid, value) {
  ui.selects[testid] = value
  fire('select', testid, value)
}

// ---------------------------------------------------------------- what the page shows
export const page = computed(() => LAYOUT[state.value[0]])

export function viewRows(key, full = false) {
  const v = VIEWS[key]
  return v ? (full ? v.full : v.shown)(state.value, {}) : []
}

export function row(table, key) {
  const t = TABLES[table]
  if (!t || key === null || key === undefined) return null
  const r = t.byKey[key]
  if (!r) return null
  const out = { _key: key }
  t.columns.forEach((c, i) => { out[c] = r[i] })
  return out
}

function label(action, s, args) {
  // The spec's label, else the action's name in words (fsmc/codegen/words.py) and its arguments as a person reads them.
  if (action.label) return action.label(s, args)
  return [action.words, ...args.map((a, i) => (a === null ? '' : argLabel(action, args, i)))].filter(Boolean).join(' ')
}

function argLabel(action, args, i) {
  const t = action.paramTables[i]
  return t ? rowTitle(t, args[i]) : cap(_disp(args[i]))
}

function optionLabel(action, op, s, args) {
  // An option shows the row's title for row references, else its text in words.
  const text = op.text(s, args)
  const dom = action.domains
  for (let i = 0; i < args.length; i++) {
    const t = action.paramTables && action.paramTables[i]
    if (t && args[i] !== null) { const r = row(t, args[i]); if (r) return r[TABLES[t].title] }
    if (args[i] === null && dom[i].length) return 'Any'
  }
  return text === '' ? 'Any' : cap(_disp(text))
}

function argOf(pl, args) {
  for (const i of [pl.value_param, pl.bind, pl.label_param]) if (i >= 0) return args[i]
  return args.length === 1 ? args[0] : null
}

function elementLabel(pl, action, op, s, args, isCommit) {
  // What the element says: a fixed text, the option it stands for, or the action's label.
  if (pl.text) return pl.text
  const ops = action.gui
  const optionLike = ['choice', 'check-add', 'check-remove', 'add', 'drag-assign'].includes(pl.role) && pl.bind < 0
  if (pl.role === 'modal') return label(action, s, args)  // the dialog's opener starts its one action
  if (pl.role === 'calendar-day') { const d = argOf(pl, args); return String(typeof d === 'string' ? Number(d.slice(8)) : d) }
  if (optionLike && pl.menu >= 0 && ops[pl.menu].op === 'hover') return 'Select'
  if (optionLike && pl.value_param >= 0) return argLabel(action, args, pl.value_param)
  if (pl.label_param >= 0) return argLabel(action, args, pl.label_param)
  if (pl.kind === 'hover' && args.length) return argLabel(action, args, 0)
  return isCommit && pl.kind !== 'input' ? label(action, s, args) : pl.words
}

// Every element of the current page, keyed by data-testid: each testid is rendered exactly once,
// by the first place (in LAYOUT order) that claims it; enabled moves nobody placed go to "more".
export const catalogue = computed(() => {
  const s = state.value
  const lay = LAYOUT[s[0]]
  const en = enabled(s)
  const enabledKeys = new Set(en.map((mv) => `${mv.action.id}:${JSON.stringify(mv.args)}`))
  const byId = new Map()
  const places = {}
  const claim = (testid, kind, place, rowKey, make) => {
    let el = byId.get(testid)
    if (!el) {
      el = { testid, kind, place, rowKey, label: '', enabled: false, options: [], value: null, children: [], menuOf: null, menus: [],
        role: '', var: -1, arg: null, gkey: `el:${testid}`, group: '', field: '', step: 0, primary: false, typed: null,
        suggestions: [] }
      make(el)
      byId.set(testid, el)
      ;(places[place] ||= []).push(el)
    }
    return el
  }
  for (const pl of lay.placements) {
    const action = ACTIONS[pl.aid]
    const ops = action.gui
    const op = ops[pl.op]
    const live = liveOps(action)
    const isCommit = live.length && live[live.length - 1] === op
    // The fields of a form nothing can submit now are not shown (no sign-in form for a visitor signed in): no
    // move needs them, and a field another move needs is claimed by that move's placement.
    if (pl.kind === 'input' && !isCommit && !action.moves.some((a) => enabledKeys.has(`${action.id}:${JSON.stringify(a)}`))) continue
    for (const args of action.moves) {
      const on = enabledKeys.has(`${action.id}:${JSON.stringify(args)}`)
      if (pl.kind === 'none' || pl.kind === 'anchor') continue
      if (pl.bind >= 0 && pl.place.startsWith('view:')) {
        const shown = viewRows(`${lay.name}.${pl.place.slice(5)}`)
        if (!shown.some((k) => k === args[pl.bind])) continue
      } else if (pl.kind !== 'select' && action.moves.length > 60 && !on) continue
      const testid = pl.kind === 'drop' ? op.text(s, args) : op.sel(s, args)
      const place = pl.place.startsWith('view:') ? `${pl.place}:${args[pl.bind]}` : pl.place
      const where = pl.menu >= 0 ? `menu:${ops[pl.menu].sel(s, args)}` : place
      const el = claim(testid, pl.kind, where, pl.bind >= 0 ? args[pl.bind] : null, (e) => {
          e.label = elementLabel(pl, action, op, s, args, isCommit)
          e.group = pl.group
          e.displayVar = action.displaySlot ?? -1
          Object.assign(e, { role: pl.role, var: pl.var, arg: argOf(pl, args), gkey: pl.gkey, field: pl.field,
            step: pl.step, primary: pl.primary, aid: action.id, hints: pl.hints, prefill: pl.prefill, shows: pl.shows,
            showsText: pl.shows_text,
            varTable: pl.value_param >= 0 ? action.paramTables[pl.value_param] : null })
          if (pl.menu >= 0 && ops[pl.menu].op === 'type') e.typed = ops[pl.menu].text(s, args)
          // a field that shows the value its move set shows it as the move types it ("London", not "Heathrow")
          if (pl.prefill) e.prefillTexts = Object.fromEntries(action.moves.map((m) => [JSON.stringify(argOf(pl, m)), op.text(s, m)]))
          const ai = [pl.bind, pl.value_param, pl.label_param].find((i) => i >= 0)
          e.argText = ai !== undefined && args[ai] !== null ? argLabel(action, args, ai) : ''
          if (pl.role === 'search') e.suggestions = [...new Set(action.moves.map((m) => op.text(s, m)))].slice(0, 8)
        })
      if (el.step !== pl.step) el.step = 0  // shared by elements of different steps: shown on every step
      if (where !== el.place && where.startsWith('menu:') && !el.menus.includes(where)) el.menus.push(where)
      const plain = !pl.text && !['choice', 'check-add', 'check-remove', 'add', 'calendar-day'].includes(pl.role) && pl.label_param < 0
      if (isCommit && on && !el.fromEnabled) { el.enabled = true; el.fromEnabled = true; if (plain && pl.kind !== 'input' && pl.kind !== 'hover') el.label = label(action, s, args) }
      if (!isCommit) el.enabled = true
      if (pl.kind === 'select') {
        const value = op.text(s, args)
        if (!el.options.some((o) => o.value === value)) el.options.push({ value, label: optionLabel(action, op, s, args) })
      }
    }
  }
  // Fallback: every element an enabled move needs, rendered even if no placement showed it.
  for (const mv of en) {
    for (const op of liveOps(mv.action)) {
      const testid = op.sel(s, mv.args)
      if (!byId.has(testid)) {
        claim(testid, op.op === 'type' ? 'input' : op.op === 'select' ? 'select' : 'button', 'more', null, (e) => {
          e.label = label(mv.action, s, mv.args)
          e.enabled = true
        })
      }
      if (op.op === 'select') {
        const el = byId.get(testid)
        const value = op.text(s, mv.args)
        if (!el.options.some((o) => o.value === value)) el.options.push({ value, label: value || 'Any' })
      }
    }
  }
  // A row of a view that a move scrolls to by a testid no control has (`scroll_until_visible "card-{f}"`, then a
  // click on the row's own button): the row itself carries that testid, so there is something to scroll to.
  for (const pl of lay.placements) {
    if (pl.kind !== 'anchor') continue
    const action = ACTIONS[pl.aid]
    const shown = new Set(viewRows(`${lay.name}.${pl.place.slice(5)}`))
    for (const args of action.moves) {
      const testid = shown.has(args[pl.bind]) ? action.gui[pl.op].sel(s, args) : null
      if (testid && !byId.has(testid)) claim(testid, 'anchor', `${pl.place}:${args[pl.bind]}`, args[pl.bind], () => {})
    }
  }
  for (const el of byId.values()) {
    if (el.place.startsWith('menu:')) {
      // An element in the menus of several openers (a year button in two date pickers) is rendered once, so it
      // goes in the menu that is open now, else in the first that claimed it.
      const open = el.menus.find((m) => ui.open[m.slice(5)] && !ui.open[el.place.slice(5)])
      const parent = byId.get((open || el.place).slice(5))
      if (parent && parent !== el) { parent.children.push(el); el.menuOf = parent.testid } else (places.more ||= []).push(el)
    }
  }
  nameApart(byId)
  return { places, byId }
})

// Each element its own accessible name: where two say the same ("Open" on every row), each adds what it is about
// (its row, its option, its widget), so an agent reading the accessibility tree can tell them apart.
function nameApart(byId) {
  const named = [...byId.values()].filter((e) => e.kind !== 'anchor')
  for (const e of named) e.name = e.kind === 'input' ? (e.field || e.label) : e.label
  const clash = () => {
    const seen = new Map()
    for (const e of named) seen.set(e.name.toLowerCase(), (seen.get(e.name.toLowerCase()) || 0) + 1)
    return named.filter((e) => seen.get(e.name.toLowerCase()) > 1)
  }
  for (const e of clash()) if (e.argText && !e.name.includes(e.argText)) e.name = `${e.name} ${e.argText}`
  for (const e of clash()) {
    const menu = e.menuOf ? byId.get(e.menuOf) : null
    const where = menu ? menu.label : e.group
    if (where && !e.name.includes(where)) e.name = `${where}: ${e.name}`
  }
  const count = new Map()
  for (const e of clash()) {
    const n = (count.get(e.name) || 0) + 1
    count.set(e.name, n)
    if (n > 1) e.name = `${e.name} (${n})`
  }
}

// The elements of a place that the current step of a multi-step form shows.
export function placed(place) {
  const steps = page.value.steps
  const now = steps && steps.slot !== undefined ? state.value[steps.slot] : 0
  return (catalogue.value.places[place] || []).filter((el) => !el.step || el.step === now)
}

// The widgets of a place: its elements grouped by the widget they belong to, in order of appearance.
export function widgets(place) {
  const out = []
  for (const el of placed(place)) {
    let g = out.find((x) => x.gkey === el.gkey)
    if (!g) { g = { gkey: el.gkey, group: el.group, els: [] }; out.push(g) }
    g.els.push(el)
  }
  return out
}

export function missing(el) {
  // The fields a disabled main button still waits for (its failing preconditions that a field on the page sets).
  if (el.enabled || !el.hints || !el.hints.length) return []
  const parts = ACTIONS[el.aid].parts
  return el.hints.filter(([i]) => !parts[i](state.value, [], {})).map(([, label]) => label)
}

const CHOOSABLE = new Set(['choice', 'clear', 'add', 'check-add', 'check-remove', 'toggle', 'calendar-day'])

export function chosen(el) {
  // The option an element stands for is the variable's current value (or, in a set, one of its values).
  if (el.var < 0 || !CHOOSABLE.has(el.role)) return false
  const v = state.value[el.var]
  if (['add', 'check-add', 'check-remove'].includes(el.role)) return Array.isArray(v) && v.some((x) => _eq(x, el.arg))
  if (el.role === 'clear') return v === null || (Array.isArray(v) && !v.length)
  if (el.role === 'toggle') return v === true
  return _eq(v, el.arg)
}

export function selectValue(el) {
  if (ui.selects[el.testid] !== undefined && el.displayVar < 0) return ui.selects[el.testid]
  if (el.displayVar >= 0) {
    const v = _fmt(state.value[el.displayVar])
    if (el.options.some((o) => o.value === v)) return v
  }
  return '__choose__'
}

// ---------------------------------------------------------------- the harness (replay, environment server)
export function installHarness() {
  const harness = Object.freeze({
    state: () => toJson(state.value),
    reset: (obj) => {
      setState(obj === undefined || obj === null ? initial() : fromJson(obj), { clearUi: true })
      return toJson(state.value)
    },
    enabled: () => enabled(state.value).map((mv) => {
      const args = {}
      mv.action.params.forEach((p, i) => { args[p] = mv.args[i] })
      return { page: PAGES[mv.action.page], action: mv.action.name, args }
    }),
  })
  Object.defineProperty(window, '__fsmc', { value: harness, enumerable: false, configurable: false, writable: false })
  window.addEventListener('hashchange', syncUrl)
  window.addEventListener('popstate', syncUrl)
  syncUrl()
}

export { BY_PAGE, isEnabled, PAGES }
