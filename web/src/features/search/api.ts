import { api, call } from '../../lib/api.ts';

export function searchTasks(query: string, offset: number, signal?: AbortSignal) {
  return call(api.GET('/api/board/search', { params: { query: { query, limit: 10, offset } }, signal }));
}

export function searchDocs(query: string, offset: number, signal?: AbortSignal) {
  return call(api.GET('/api/search/docs', { params: { query: { query, limit: 10, offset } }, signal }));
}

export function searchMemory(query: string, offset: number, signal?: AbortSignal) {
  return call(api.GET('/api/search/memory', { params: { query: { query, limit: 10, offset } }, signal }));
}

export function docHeader(path: string, signal?: AbortSignal) {
  return call(api.GET('/api/docs/header', { params: { query: { path } }, signal }));
}

export function observation(id: number, signal?: AbortSignal) {
  return call(api.GET('/api/memory/observations/{id}', { params: { path: { id } }, signal }));
}

export function searchSymbols(query: string, offset: number, signal?: AbortSignal) {
  return call(api.GET('/api/graph/search', { params: { query: { query, limit: 10, offset } }, signal }));
}
