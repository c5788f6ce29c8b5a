-- valid() reports which forbidden names the sandbox exposes; every config is valid when
-- none is reachable.
local forbidden = {
    "io", "os", "debug", "package", "require", "load", "loadfile", "dofile", "loadstring",
    "collectgarbage", "print", "warn", "coroutine", "utf8",
}
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { probe = { 1, 2 } },
    valid = function(config, problem, device)
        local found = {}
        for _, name in ipairs(forbidden) do
            if _G[name] ~= nil then
                found[#found + 1] = name
            end
        end
        if string.dump ~= nil then found[#found + 1] = "string.dump" end
        if ("").dump ~= nil then found[#found + 1] = "(''):dump" end
        if math.random ~= nil then found[#found + 1] = "math.random" end
        for _, name in ipairs({ "match", "gmatch", "gsub" }) do
            if string[name] ~= nil then found[#found + 1] = "string." .. name end
        end
        if table.move ~= nil then found[#found + 1] = "table.move" end
        if #found > 0 then
            return false, table.concat(found, ",")
        end
        -- what must stay: the pure libraries
        -- (string.rep of nothing returns at once instead of looping 2^63 times in C)
        return string.format("%d", 7) == "7" and math.floor(2.5) == 2 and table.concat({ 1 }) == "1"
            and pcall(error, "x") == false and ("").rep("", math.maxinteger) == ""
            and ("sm_90a"):find("90", 1, true) == 4 and ("ab"):rep(2, "-") == "ab-ab"
    end,
}
