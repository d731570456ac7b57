// The state machine over the compiled runtime: enabled moves, step, JSON form (docs/semantics.md).
import { ACTIONS, DEFAULTS, ENTRY, PAGES, PAGE_NORM, PAGE_VARS, SESSION_DEFAULTS, SESSION_NORM, SESSION_VARS } from './runtime.js'

function product(domains) {
  let out = [[]]
  for (const d of domains) out = out.flatMap((prefix) => d.map((x) => [...prefix, x]))
  return out
}

for (const a of ACTIONS) a.moves = product(a.domains)
export const BY_PAGE = PAGES.map((_, i) => ACTIONS.filter((a) => a.page === i))

export function initial() {
  return [ENTRY, ...SESSION_DEFAULTS, ...DEFAULTS[ENTRY]]
}

export function isEnabled(s, action, args, memo) {
  return action.page === s[0] && (action.req === null || action.req(s, args, memo || {}))
}

export function enabled(s) {
  // Moves of the current page: declaration order, then parameter tuples in domain order.
  const memo = {}
  const out = []
  for (const a of BY_PAGE[s[0]]) {
    for (const args of a.moves) if (a.req === null || a.req(s, args, memo)) out.push({ action: a, args })
  }
  return out
}

export function step(s, action, args) {
  // A disabled move, or one of another page, is a no-op.
  return isEnabled(s, action, args) ? action.step(s, args) : s
}

function plain(v) {
  return Array.isArray(v) ? v.map(plain) : v
}

export function toJson(s) {
  const names = [...SESSION_VARS, ...PAGE_VARS[s[0]]]
  const vars = {}
  names.forEach((n, i) => { vars[n] = plain(s[1 + i]) })
  return { page: PAGES[s[0]], vars }
}

export function fromJson(obj) {
  // Throws on a malformed state; the harness reports it instead of changing anything.
  if (!obj || typeof obj !== 'object') throw new Error('state must be an object {page, vars}')
  const pi = PAGES.indexOf(obj.page)
  if (pi < 0) throw new Error(`unknown page ${JSON.stringify(obj.page)}`)
  const vars = obj.vars || {}
  const get = (name) => {
    if (!(name in vars)) throw new Error(`missing variable ${JSON.stringify(name)}`)
    return plain(vars[name])
  }
  return [pi, ...SESSION_VARS.map((n, i) => SESSION_NORM[i](get(n))), ...PAGE_VARS[pi].map((n, i) => PAGE_NORM[pi][i](get(n)))]
}

export function moveJson(mv) {
  const args = {}
  mv.action.params.forEach((p, i) => { args[p] = mv.args[i] })
  return { page: PAGES[mv.action.page], action: mv.action.name, args }
}
