// Value helpers the compiled runtime calls; generic for every site (docs/semantics.md).
// Values are immutable: sets are sorted arrays, maps are sorted arrays of [key, value] pairs.

export function _t(v) {
  // Python truthiness: empty collections, 0, "" and null are false.
  if (Array.isArray(v)) return v.length > 0
  return Boolean(v)
}

export function _and(l, r) { return _t(l) ? r() : l }
export function _or(l, r) { return _t(l) ? l : r() }

export function _eq(a, b) {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!_eq(a[i], b[i])) return false
    return true
  }
  const na = typeof a === 'number' || typeof a === 'boolean'
  const nb = typeof b === 'number' || typeof b === 'boolean'
  if (na && nb) return Number(a) === Number(b)
  return false
}

export function _has(coll, x) {
  for (const e of coll) if (_eq(e, x)) return true
  return false
}

export function _str(v) {
  if (v === true) return 'True'
  if (v === false) return 'False'
  if (v === null || v === undefined) return 'None'
  return String(v)
}

export function _containsText(hay, needle) {
  if (hay === null || hay === undefined || needle === null || needle === undefined) return false
  return _str(hay).toLowerCase().includes(_str(needle).toLowerCase())
}

export function _col(rows, key, i) {
  if (key === null || key === undefined) return null
  const row = rows[key]
  return row === undefined ? null : row[i]
}

export function _len(x) { return x.length }
export function _first(x) { return x.length ? x[0] : null }
export function _last(x) { return x.length ? x[x.length - 1] : null }
export function _sumMap(m) { let t = 0; for (const [, v] of m) t += v; return t }

// ---------------------------------------------------------------- ordering
export function _natCmp(a, b) {
  // Python's (v is not None, v): none first, then natural order.
  const an = a === null || a === undefined
  const bn = b === null || b === undefined
  if (an || bn) return an === bn ? 0 : (an ? -1 : 1)
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = _natCmp(a[i], b[i])
      if (c) return c
    }
    return a.length - b.length
  }
  return a < b ? -1 : (a > b ? 1 : 0)
}

export function _domCmp(values) {
  // Domain order of a choice or ref domain: none first, unknown values last.
  const index = new Map(values.map((v, i) => [v, i]))
  const key = (v) => (v === null || v === undefined ? -1 : (index.has(v) ? index.get(v) : values.length))
  return (a, b) => key(a) - key(b)
}

export function _sortBy(rows, keyFn, desc) {
  // Stable; `desc` reverses the comparison so equal keys keep their order, as Python's reverse=True does.
  const keyed = rows.map((r) => [keyFn(r), r])
  keyed.sort((x, y) => (desc ? _natCmp(y[0], x[0]) : _natCmp(x[0], y[0])))
  return keyed.map((p) => p[1])
}

// ---------------------------------------------------------------- sets and maps
export function _normSet(items, cmp) {
  const out = []
  for (const x of items) if (!_has(out, x)) out.push(x)
  return out.sort(cmp)
}

export function _normMap(pairs, cmp) {
  const out = []
  for (const [k, v] of pairs) {
    const i = out.findIndex((p) => _eq(p[0], k))
    if (i >= 0) out[i] = [k, v]
    else out.push([k, v])
  }
  return out.sort((x, y) => cmp(x[0], y[0]))
}

export function _setAdd(s, x, cmp) { return _has(s, x) ? s : [...s, x].sort(cmp) }
export function _setRemove(s, x) { return s.filter((e) => !_eq(e, x)) }

export function _mapGet(m, k) {
  for (const [key, v] of m) if (_eq(key, k)) return v
  return null
}

export function _mapHas(m, k) { return m.some(([key]) => _eq(key, k)) }

export function _mapSet(m, k, v, cmp) {
  const rest = m.filter(([key]) => !_eq(key, k))
  if (v !== null && v !== undefined) rest.push([k, v])
  return rest.sort((x, y) => cmp(x[0], y[0]))
}

export function _mapRemove(m, k) { return m.filter(([key]) => !_eq(key, k)) }

export function _mapAdd(m, k, by, lo, hi, cmp) {
  const cur = _mapGet(m, k)
  const value = (cur === null ? 0 : cur) + by
  return _mapSet(m, k, value < lo ? null : Math.min(value, hi), cmp)
}

export function _clamp(x, lo, hi) { return Math.min(hi, Math.max(lo, x)) }

// ---------------------------------------------------------------- templates
export function _fmt(v) {
  // docs/semantics.md, Templates: none empty, bools lower case, collections comma separated.
  if (v === null || v === undefined) return ''
  if (v === true) return 'true'
  if (v === false) return 'false'
  if (Array.isArray(v)) return v.map(_fmt).join(', ')
  return String(v)
}

export function _fmt2(v) {
  if (typeof v === 'number') return v.toFixed(2)
  return _fmt(v)
}

export function _pyslice(x, lo, hi) { return x.slice(lo, hi) }

// ---------------------------------------------------------------- display (labels a person reads; never selectors)
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

export function _prettyDate(iso) {
  const [y, m, d] = iso.split('-').map(Number)
  return `${WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()]} ${d} ${MONTHS[m - 1]} ${y}`
}

export function _disp(v) {
  // A value in words: "price_asc" -> "price: low to high", "under_50" -> "under 50", ISO dates as dates.
  if (typeof v !== 'string') return _fmt(v)
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return _prettyDate(v)
  const order = v.match(/^(.+)_(asc|desc)$/)
  if (order) return `${order[1].replace(/_/g, ' ')}: ${order[2] === 'asc' ? 'low to high' : 'high to low'}`
  if (/^[A-Z0-9]+(_[A-Z0-9]+)+$/.test(v)) {
    // a constant written as code (AutoWebWorld's `USER_ANY`): in words, "any user"
    const w = v.toLowerCase().split('_')
    return (w[w.length - 1] === 'any' ? ['any', ...w.slice(0, -1)] : w).join(' ')
  }
  return v.replace(/_/g, ' ')
}
