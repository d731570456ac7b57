// The site's reactive store: the FSM state, what the UI shows for it, and how UI events become moves.
// Generic for every site; everything spec-specific comes from runtime.js (compiled) and site.js (decided).
import { reactive, shallowRef, computed } from 'vue'
import { ACTIONS, PAGES, VIEWS } from './runtime.js'
import { BY_PAGE, enabled, fromJson, initial, isEnabled, toJson } from './machine.js'
import { _fmt } from './lib.js'
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
export const ui = reactive({ inputs: {}, selects: {}, open: {}, toast: '', toastSeq: 0, carousel: {}, dragging: null })

function persist() {
  try { window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(toJson(state.value))) } catch (err) { /* private mode */ }
}

export function syncUrl() {
  // The URL shows the page; it never drives the FSM (only moves change the page).
  const want = `#/${PAGES[state.value[0]]}`
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
    window.scrollTo(0, 0)
  }
  persist()
  syncUrl()
}

function commit(mv) {
  const label = mv.action.label ? mv.action.label(state.value, mv.args) : ''
  setState(mv.action.step(state.value, mv.args))
  ui.open = {}
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
  for (const mv of enabled(s)) {
    const ops = liveOps(mv.action)
    if (!ops.length) continue
    if (!commitMatches(ops[ops.length - 1], kind, testid, value, s, mv.args)) continue
    if (!guardsHold(ops.slice(0, -1), s, mv.args)) continue
    commit(mv)
    return true
  }
  return false
}

export function toggleOpen(testid) {
  ui.open[testid] = !ui.open[testid]
  fire('click', testid)
}

export function typeInto(testid, text) {
  ui.inputs[testid] = text
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
  if (action.label) return action.label(s, args)
  const words = action.name.replace(/[_-]+/g, ' ')
  return [words[0].toUpperCase() + words.slice(1), ...args.map(_fmt)].filter(Boolean).join(' ')
}

function argLabel(action, args, i) {
  const t = action.paramTables[i]
  const r = t ? row(t, args[i]) : null
  return r ? String(r[TABLES[t].title]) : _fmt(args[i])
}

function optionLabel(action, op, s, args) {
  // An option shows the row's title for row references, else its text.
  const text = op.text(s, args)
  const dom = action.domains
  for (let i = 0; i < args.length; i++) {
    const t = action.paramTables && action.paramTables[i]
    if (t && args[i] !== null) { const r = row(t, args[i]); if (r) return r[TABLES[t].title] }
    if (args[i] === null && dom[i].length) return 'Any'
  }
  return text === '' ? 'Any' : text
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
      el = { testid, kind, place, rowKey, label: '', enabled: false, options: [], value: null, children: [], menuOf: null }
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
    for (const args of action.moves) {
      const on = enabledKeys.has(`${action.id}:${JSON.stringify(args)}`)
      if (pl.kind === 'none') continue
      if (pl.bind >= 0 && pl.place.startsWith('view:')) {
        const shown = viewRows(`${lay.name}.${pl.place.slice(5)}`)
        if (!shown.some((k) => k === args[pl.bind])) continue
      } else if (pl.kind !== 'select' && action.moves.length > 60 && !on) continue
      const testid = pl.kind === 'drop' ? op.text(s, args) : op.sel(s, args)
      const place = pl.place.startsWith('view:') ? `${pl.place}:${args[pl.bind]}` : pl.place
      const el = claim(testid, pl.kind, pl.menu >= 0 ? `menu:${ops[pl.menu].sel(s, args)}` : place,
        pl.bind >= 0 ? args[pl.bind] : null, (e) => {
          e.label = pl.label_param >= 0 ? argLabel(action, args, pl.label_param) : (isCommit && pl.kind !== 'input' ? label(action, s, args) : humanTestid(testid))
          e.group = pl.group
          e.displayVar = action.displaySlot ?? -1
        })
      if (isCommit && on && !el.fromEnabled) { el.enabled = true; el.fromEnabled = true; if (pl.label_param < 0 && pl.kind !== 'input') el.label = label(action, s, args) }
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
  for (const el of byId.values()) {
    if (el.place.startsWith('menu:')) {
      const parent = byId.get(el.place.slice(5))
      if (parent && parent !== el) { parent.children.push(el); el.menuOf = parent.testid } else (places.more ||= []).push(el)
    }
  }
  return { places, byId }
})

export function placed(place) {
  return (catalogue.value.places[place] || [])
}

export function humanTestid(testid) {
  const words = testid.replace(/^nav-/, '').replace(/[-_]+/g, ' ').trim()
  return words ? words[0].toUpperCase() + words.slice(1) : testid
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
