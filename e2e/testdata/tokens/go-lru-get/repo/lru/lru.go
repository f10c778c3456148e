package lru

import "container/list"

// Cache keeps the most recently used entries, up to a capacity.
type Cache struct {
	cap   int
	order *list.List // front: most recently used
	items map[string]*list.Element
}

type entry struct {
	key   string
	value int
}

// New returns a cache holding at most capacity entries.
func New(capacity int) *Cache {
	return &Cache{cap: capacity, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns the value for key.
func (c *Cache) Get(key string) (int, bool) {
	e, ok := c.items[key]
	if !ok {
		return 0, false
	}
	return e.Value.(*entry).value, true
}

// Put sets key to value, evicting the least recently used entry when full.
func (c *Cache) Put(key string, value int) {
	if e, ok := c.items[key]; ok {
		e.Value.(*entry).value = value
		c.order.MoveToFront(e)
		return
	}
	if c.order.Len() == c.cap {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*entry).key)
	}
	c.items[key] = c.order.PushFront(&entry{key, value})
}

// Len is the number of entries.
func (c *Cache) Len() int { return c.order.Len() }
