-- hostile: tries to swallow the budget error with pcall and keep going
local function spin() while true do end end
while true do
    pcall(spin)
end
