// How data and state read to a person: the formats fsmc decided per column (fsmc/codegen/present.py).
// Display only: nothing here is ever part of a selector or of the state.
import { TABLES } from '../data.js'
import { SITE } from '../site.js'
import { _disp, _fmt, _prettyDate } from './lib.js'

export function cap(s) {
  const t = String(s ?? '')
  return t ? t[0].toUpperCase() + t.slice(1) : t
}

export function money(v) {
  if (typeof v !== 'number') return _fmt(v)
  const [whole, cents] = v.toFixed(2).split('.')
  return `${SITE.currency}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`
}

export function duration(minutes) {
  const h = Math.floor(minutes / 60)
  const m = minutes % 60
  return h ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m`
}

// A title written as an identifier (a row with nothing but its key: "new_issue_label-1"), in words.
export function readable(v) {
  const t = String(v ?? '')
  return /^[a-z0-9]+([_-][a-z0-9]+)+$/.test(t) ? cap(t.replace(/[_-]+/g, ' ')) : t
}

export function rowTitle(table, key) {
  const t = TABLES[table]
  const r = t && key !== null && key !== undefined ? t.byKey[key] : undefined
  return r ? readable(r[t.columns.indexOf(t.title)]) : _disp(key)
}

// A state value: a row's title for references, words for the rest ({kind, table, vtable} from the layout).
export function showValue(v, info = {}) {
  if (v === null || v === undefined) return ''
  if (info.kind === 'map') {
    return v.map(([k, x]) => `${info.table ? rowTitle(info.table, k) : _disp(k)}: ${info.vtable ? rowTitle(info.vtable, x) : cap(_disp(x))}`).join(', ')
  }
  if (Array.isArray(v)) return v.map((x) => (info.table ? rowTitle(info.table, x) : cap(_disp(x)))).join(', ')
  if (info.table) return rowTitle(info.table, v)
  if (typeof v === 'boolean') return v ? 'Yes' : 'No'
  return cap(_disp(v))
}

// One cell of a row, as the column's format says; '' where there is nothing worth showing.
export function showCell(table, row, i, withLabel = false) {
  const t = TABLES[table]
  const show = t.show[i]
  const v = row[i]
  if (v === null || v === undefined || v === '') return ''
  const label = show.label
  switch (show.fmt) {
    case 'ref': return rowTitle(t.refs[i], v)
    case 'money': return withLabel ? `${label} ${money(v)}` : money(v)
    case 'rating': return `★ ${Number(v).toFixed(1)}`
    case 'duration': return duration(v)
    case 'stops': return v === 0 ? 'Nonstop' : `${v} stop${v === 1 ? '' : 's'}`
    case 'count': return v === 0 ? '' : `${v} ${v === 1 ? label.toLowerCase().replace(/s$/, '') : label.toLowerCase()}`
    case 'bool': return v ? label : ''
    case 'date': return _prettyDate(v)
    case 'datetime': return `${_prettyDate(v.slice(0, 10))}, ${v.slice(11)}`
    case 'unit': return `${v} ${t.columns[i].split('_').pop().toUpperCase()}`
    case 'number': return withLabel ? `${label} ${v}` : String(v)
    case 'hidden': return ''
    default: return /^[a-z]+$/.test(v) ? cap(v) : String(v)  // a category-like word: "economy" -> "Economy"
  }
}

// A detail entry: one column, or several shown together (departs → arrives).
export function showCells(table, row, cols) {
  return cols.map((i) => showCell(table, row, i)).filter(Boolean).join(' → ')
}

export function showFact(table, row, i) {
  const t = TABLES[table]
  const v = row[i]
  if (t.show[i].fmt === 'bool') return v ? 'Yes' : 'No'
  if (t.show[i].fmt === 'count' || t.show[i].fmt === 'number') return String(v)
  return showCell(table, row, i)
}

export function initials(text) {
  const words = String(text).split(/\s+/).filter((w) => /^[A-Za-z0-9]/.test(w))
  return words.slice(0, 2).map((w) => w[0]).join('').toUpperCase() || '?'
}
