-- the table lacks its template
return {
    arch = "sm_80",
    params = { tile = { 1 } },
}
