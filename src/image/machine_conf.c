// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A target machine's description for `plan --root IMAGE --machine FILE`:
 * an ini file of a [machine] section (DMI strings, CPUs, the hypervisor
 * flag, the command line the image boots with), a [disk "NAME"] per disk
 * and a [nic "NAME"] per interface. The shipped ones are in machines/;
 * docs/image-builders.md describes the keys.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "image/machine.h"

enum kind { K_MACHINE, K_DISK, K_NIC };
enum type { T_STR, T_UINT, T_U64 };

static const struct mkey {
	enum kind kind;
	const char *key;
	enum type type;
	size_t off, size;
} keys[] = {
#define S(k, st, f) { k, #f, T_STR, offsetof(st, f), sizeof(((st *)0)->f) }
#define U(k, st, f) { k, #f, T_UINT, offsetof(st, f), 0 }
	S(K_MACHINE, struct machine, sys_vendor), S(K_MACHINE, struct machine, product_name),
	S(K_MACHINE, struct machine, bios_vendor), S(K_MACHINE, struct machine, arch),
	S(K_MACHINE, struct machine, cmdline), S(K_MACHINE, struct machine, compatible),
	U(K_MACHINE, struct machine, cpus),
	U(K_MACHINE, struct machine, hypervisor),
	S(K_DISK, struct mdisk, bus), S(K_DISK, struct mdisk, pci), S(K_DISK, struct mdisk, vendor),
	S(K_DISK, struct mdisk, model), S(K_DISK, struct mdisk, host), S(K_DISK, struct mdisk, parent),
	U(K_DISK, struct mdisk, queues), U(K_DISK, struct mdisk, depth), U(K_DISK, struct mdisk, rotational),
	U(K_DISK, struct mdisk, read_ahead_kb), { K_DISK, "size", T_U64, offsetof(struct mdisk, size), 0 },
	S(K_NIC, struct mnic, driver), S(K_NIC, struct mnic, pci), S(K_NIC, struct mnic, parent),
	U(K_NIC, struct mnic, queues),
#undef S
#undef U
};

static const char *const buses[] = { "virtio", "nvme", "scsi" };

struct parse {
	struct machine *m;
	const char *file;
	int line, errors;
	enum kind kind;
	void *sect; /* the section's struct */
};

_printf_(2, 3) static void bad(struct parse *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "%s:%d: %s", p->file, p->line, msg);
	p->errors++;
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* [machine], [disk "NAME"], [nic "NAME"] */
static void section(struct parse *p, char *s)
{
	char *q = strchr(s, '"'), *end = q ? strchr(q + 1, '"') : NULL, *name = q ? q + 1 : NULL;
	struct machine *m = p->m;

	if (end)
		*end = '\0';
	p->sect = NULL;
	if (!strcmp(s, "machine]")) {
		p->kind = K_MACHINE, p->sect = m;
	} else if (!end || strcmp(end + 1, "]") || !valid_name(name) || strlen(name) >= 16) {
		bad(p, "a section is [machine], [disk \"NAME\"] or [nic \"NAME\"] (NAME: a kernel name)");
	} else if (!strncmp(s, "disk \"", 6) && m->ndisks < MACHINE_DISKS) {
		struct mdisk *d = &m->disk[m->ndisks++];

		*d = (struct mdisk){ .queues = 1, .line = p->line, .read_ahead_kb = 128, .size = 209715200 };
		snprintf(d->name, sizeof(d->name), "%s", name);
		p->kind = K_DISK, p->sect = d;
	} else if (!strncmp(s, "nic \"", 5) && m->nnics < MACHINE_NICS) {
		struct mnic *n = &m->nic[m->nnics++];

		*n = (struct mnic){ .queues = 1, .line = p->line };
		snprintf(n->name, sizeof(n->name), "%s", name);
		p->kind = K_NIC, p->sect = n;
	} else {
		bad(p, "[%s: not a section, or more than %d disks or %d NICs", s, MACHINE_DISKS, MACHINE_NICS);
	}
}

static void assign(struct parse *p, const char *key, const char *v)
{
	unsigned long long u;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		char *f = (char *)p->sect + keys[i].off;

		if (keys[i].kind != p->kind || strcmp(keys[i].key, key))
			continue;
		if (keys[i].type == T_STR && strlen(v) >= keys[i].size)
			bad(p, "%s: longer than %zu bytes", key, keys[i].size - 1);
		else if (keys[i].type == T_STR)
			memcpy(f, v, strlen(v) + 1);
		else if (parse_u64(v, &u) < 0 || (keys[i].type == T_UINT && u > 1u << 20))
			bad(p, "%s = '%s': not a number", key, v);
		else if (keys[i].type == T_UINT)
			*(unsigned *)(void *)f = (unsigned)u;
		else
			*(unsigned long long *)(void *)f = u;
		return;
	}
	bad(p, "%s: no such key in this section", key);
}

static void line(struct parse *p, char *s)
{
	char *eq;

	s = trim(s);
	if (!*s || *s == '#' || *s == ';')
		return;
	if (*s == '[')
		return section(p, s + 1);
	eq = strchr(s, '=');
	if (!eq) {
		bad(p, "'%s': not KEY = VALUE", s);
		return;
	}
	*eq = '\0';
	if (!p->sect)
		bad(p, "%s: outside a section", trim(s));
	else
		assign(p, trim(s), trim(eq + 1));
}

/* What a device needs whatever the file says: a known bus, a NIC's driver. */
static void complete(struct parse *p)
{
	for (size_t i = 0; i < p->m->ndisks; i++) {
		struct mdisk *d = &p->m->disk[i];
		bool known = false;

		for (size_t b = 0; b < ARRAY_SIZE(buses); b++)
			known = known || !strcmp(d->bus, buses[b]);
		p->line = d->line;
		if (!known)
			bad(p, "[disk \"%s\"] bus = '%s': virtio, nvme or scsi", d->name, d->bus);
		else if (!strcmp(d->bus, "scsi") && !*d->host)
			bad(p, "[disk \"%s\"]: a SCSI disk needs host = (its host's driver: virtio_scsi, storvsc…)", d->name);
		if (!d->queues)
			bad(p, "[disk \"%s\"] queues = 0: a queue has at least one", d->name);
	}
	for (size_t i = 0; i < p->m->nnics; i++) {
		p->line = p->m->nic[i].line;
		if (!*p->m->nic[i].driver)
			bad(p, "[nic \"%s\"]: driver = is needed", p->m->nic[i].name);
	}
}

int machine_load(struct machine *m, const char *file)
{
	struct parse p = { .m = m, .file = file };
	FILE *f = fopen(file, "re");
	char buf[1200];

	if (!f) {
		log_msg(LOG_ERR, "--machine %s: %s", file, strerror(errno));
		return -errno;
	}
	snprintf(m->file, sizeof(m->file), "%s", file);
	m->cpus = 2;
	m->hypervisor = 1;
	while (fgets(buf, sizeof(buf), f)) {
		p.line++;
		line(&p, buf);
	}
	fclose(f);
	complete(&p);
	return p.errors ? -EINVAL : 0;
}
